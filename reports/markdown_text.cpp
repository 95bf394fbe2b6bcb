#include "reports/markdown_text.h"

#include <algorithm>

namespace ordo::reports::markdown {
namespace {

std::size_t longest_backtick_run(std::string_view text) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

}  // namespace

std::string code(std::string_view text) {
  std::string flat(text);
  std::replace(flat.begin(), flat.end(), '\n', ' ');
  const std::string fence(longest_backtick_run(flat) + 1, '`');
  // A span that starts or ends with a backtick needs a space between it and the fence (CommonMark strips
  // one space from each end).
  const bool pad = !flat.empty() && (flat.front() == '`' || flat.back() == '`');
  return fence + (pad ? " " : "") + flat + (pad ? " " : "") + fence;
}

std::string fenced(std::string_view text) {
  const std::string fence(std::max<std::size_t>(3, longest_backtick_run(text) + 1), '`');
  std::string out = fence + "\n" + std::string(text);
  if (out.back() != '\n') out += '\n';
  return out + fence + "\n";
}

std::string clipped(std::string_view text, std::size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);
  std::size_t cut = max_chars;
  // Never inside a UTF-8 sequence: back up over continuation bytes (10xxxxxx).
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + " ...";
}

std::string cut_to(const std::string& text, std::size_t limit, const std::string& note) {
  if (text.size() <= limit) return text;
  std::string out;
  std::size_t open_fence = 0;  // the length of the open fence's backtick run; 0: outside a fenced block
  // The worst case after a line is its fence closed and the note: keep room for both.
  const std::size_t room = note.size() + 2;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line(text.data() + at, end - at);
    const std::size_t run = std::min(line.find_first_not_of('`'), line.size());  // the backticks it starts with
    std::size_t fence_after = open_fence;
    if (open_fence == 0 && run >= 3)
      fence_after = run;
    else if (open_fence > 0 && run >= open_fence && run == line.size())
      fence_after = 0;
    if (out.size() + line.size() + 1 + fence_after + 1 + room > limit) break;
    out.append(line).push_back('\n');
    open_fence = fence_after;
    at = end + 1;
  }
  if (open_fence > 0) out += std::string(open_fence, '`') + "\n";
  return out + "\n" + note + "\n";
}

}  // namespace ordo::reports::markdown
