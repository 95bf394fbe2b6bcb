#pragma once
// Text from a report placed into Markdown so that it reads as written: nothing in it (backticks, '|', '<',
// '&', '*', a newline) can end a code span or a fenced block, open an HTML tag, or start a heading: it is
// shown in code spans and fenced blocks, whose content Markdown takes literally.
#include <string>
#include <string_view>

namespace ordo::reports::markdown {

// An inline code span: delimited by one backtick more than the longest run inside; newlines as spaces.
std::string code(std::string_view text);
// A fenced block on lines of its own: the fence one backtick longer than any run inside (at least three).
std::string fenced(std::string_view text);
// `text` cut to at most `max_chars` bytes at a UTF-8 character boundary, with " ..." where it was cut.
std::string clipped(std::string_view text, std::size_t max_chars);

// `text` if it has at most `limit` bytes; else its first whole lines, a fenced block left open closed, and
// `note` (a line of its own), in at most `limit` bytes.
std::string cut_to(const std::string& text, std::size_t limit, const std::string& note);

}  // namespace ordo::reports::markdown
