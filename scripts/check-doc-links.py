#!/usr/bin/env python3
"""Fails when ordo's Markdown names a file the repository does not have.

Reads README.md, docs/*.md, evidence/README.md and every other *.md file outside the evidence/ run folders,
and checks two kinds of reference:
  - relative links [text](path): resolved against the file's own folder (or the repository root for
    a path that starts with /); URLs and in-page anchors are skipped, an anchor after a path is ignored;
  - repository paths in backticks, in code blocks and in the text: a token with a / whose first part is a
    top-level folder of the repository (core/x.h, docs/x.md, kernels/foo.cu, scripts/test.sh), resolved
    against the root. {a,b} alternatives must all exist, a * pattern must match at least one file.
Then it checks that every one of those Markdown files is reachable from docs/README.md by relative links.

Usage: scripts/check-doc-links.py [REPOSITORY_ROOT]   (default: the folder above this script)
Exit 0 when every reference resolves and every page is reachable; 1 otherwise, one line per problem.
Standard library only.
"""
import glob
import os
import re
import subprocess
import sys

# Top-level folders a backticked path may start with. The folders of today are added from the tree; this
# list keeps a folder that moves away (or is misspelt) from silently escaping the check.
KNOWN_ROOTS = {
    "bench", "cmake", "contracts", "core", "corpus", "docs", "evidence", "examples", "fuzz", "include", "kernels",
    "oracle", "properties", "protocol", "reports", "scripts", "subjects", "tests", "tools",
}
# Folders the build writes (never in the repository), and the shared reference material beside it.
NOT_ROOTS = {"build", "build-sanitize", "build-gpu-bundle", "build-fuzz", "build-logs", "gpu-bundle", "shared"}

LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
INLINE_CODE = re.compile(r"(`+)((?:(?!\n\s*\n).)+?)\1", re.S)
FENCE = re.compile(r"^\s*(```|~~~)")
TOKEN_STRIP = "\"'()[],;:.!?"


def markdown_files(root):
    """Every *.md the repository tracks or would track (untracked but not ignored), outside evidence/*/."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard", "*.md"],
                             check=True, capture_output=True, text=True).stdout
        files = sorted(set(out.split("\n")) - {""})
    except (OSError, subprocess.CalledProcessError):
        files = []
        for dirpath, dirnames, filenames in os.walk(root):
            rel_dir = os.path.relpath(dirpath, root)
            dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in NOT_ROOTS]
            for f in filenames:
                if f.endswith(".md"):
                    files.append(os.path.normpath(os.path.join(rel_dir, f)))
        files.sort()
    kept = []
    for f in files:
        parts = f.split("/")
        if parts[0] == "evidence" and len(parts) > 2:
            continue  # a run's own notes: data, written once, not documentation
        if parts[0] in NOT_ROOTS or not os.path.isfile(os.path.join(root, f)):
            continue
        kept.append(f)
    return kept


def expand_braces(token):
    m = re.search(r"\{([^{}]*)\}", token)
    if not m:
        return [token]
    out = []
    for alt in m.group(1).split(","):
        out.extend(expand_braces(token[:m.start()] + alt + token[m.end():]))
    return out


def exists(root, rel):
    path = os.path.join(root, rel)
    if any(c in rel for c in "*?["):
        return bool(glob.glob(path))
    return os.path.exists(path)


def path_tokens(text, roots):
    """Whitespace-separated tokens of code text that look like repository paths."""
    for raw in text.split():
        token = raw.strip(TOKEN_STRIP)
        token = re.sub(r":\d+(-\d+)?$", "", token)  # file.h:12
        if "/" not in token or "://" in token or any(c in token for c in "<>$=@\\|"):
            continue
        if token.startswith("./"):
            token = token[2:]
        first = token.split("/", 1)[0]
        if first not in roots:
            continue
        yield token


def blank_out(text, pattern):
    """text with each match of pattern replaced by spaces, its newlines kept (so line numbers stay)."""
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def scan(root, rel, roots):
    """Yields (line number, kind, target, resolved repository path) for each reference in one file."""
    base = os.path.dirname(rel)
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        lines = f.read().split("\n")
    # Code blocks line by line; the text between them as a whole, since a code span or a link may wrap.
    chunks, text, text_start, in_fence = [], [], 1, False
    for number, line in enumerate(lines, 1):
        if FENCE.match(line):
            if not in_fence:
                chunks.append((text_start, "\n".join(text)))
                text = []
            else:
                text_start = number + 1
            in_fence = not in_fence
            continue
        if in_fence:
            for token in path_tokens(line, roots):
                yield number, "code block", token, token
        else:
            text.append(line)
    chunks.append((text_start, "\n".join(text)))
    for first_line, chunk in chunks:
        def line_of(pos):
            return first_line + chunk.count("\n", 0, pos)
        for m in LINK.finditer(chunk):
            target = m.group(1)
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("#"):
                continue  # a URL, mailto:, or an anchor in this page
            path = target.split("#", 1)[0]
            resolved = path.lstrip("/") if path.startswith("/") else os.path.normpath(os.path.join(base, path))
            yield line_of(m.start()), "link", target, resolved
        for m in INLINE_CODE.finditer(chunk):
            for token in path_tokens(m.group(2), roots):
                yield line_of(m.start()), "backticks", token, token
        prose = blank_out(blank_out(chunk, INLINE_CODE), LINK)
        for i, line in enumerate(prose.split("\n")):
            for token in path_tokens(line, roots):
                yield first_line + i, "text", token, token


def linked_pages(root, rel, roots):
    """The Markdown pages one file links to (a link to a folder counts as one to its README.md)."""
    pages = set()
    for _, kind, _, resolved in scan(root, rel, roots):
        if kind != "link":
            continue
        if os.path.isdir(os.path.join(root, resolved)):
            resolved = os.path.normpath(os.path.join(resolved, "README.md"))
        if resolved.endswith(".md"):
            pages.add(resolved)
    return pages


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    files = markdown_files(root)
    if not files:
        print(f"check-doc-links: no Markdown files found under {root}")
        return 1
    top = {e for e in os.listdir(root) if os.path.isdir(os.path.join(root, e)) and not e.startswith(".")}
    roots = (KNOWN_ROOTS | top) - NOT_ROOTS
    problems = []
    references = 0
    for rel in files:
        for number, kind, target, resolved in scan(root, rel, roots):
            references += 1
            if resolved.startswith(".."):
                problems.append(f"{rel}:{number}: {kind} {target} leads out of the repository")
                continue
            missing = [p for p in expand_braces(resolved) if not exists(root, p)]
            if missing:
                shown = target if missing == [resolved] else f"{target} ({', '.join(missing)})"
                problems.append(f"{rel}:{number}: {kind} {shown}: no such file or folder in the repository")
    # Every page reachable from the index.
    index = "docs/README.md"
    if index not in files:
        problems.append(f"{index}: missing: it is the index every page must be reachable from")
    else:
        seen, todo = {index}, [index]
        while todo:
            for page in linked_pages(root, todo.pop(), roots):
                if page in files and page not in seen:
                    seen.add(page)
                    todo.append(page)
        for rel in files:
            if rel not in seen:
                problems.append(f"{rel}: not reachable from {index} by links")
    for p in problems:
        print(f"check-doc-links: {p}")
    if problems:
        print(f"check-doc-links: FAIL: {len(problems)} problem(s) in {len(files)} Markdown files")
        return 1
    print(f"check-doc-links: PASS: {references} references in {len(files)} Markdown files resolve; "
          f"every page is reachable from {index}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
