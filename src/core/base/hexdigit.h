#pragma once

namespace AgentLoop {

// The value of one hexadecimal digit (either case), or -1 when c is not one. A char32_t takes a
// byte, a UTF-16 unit or a code point alike.
inline constexpr int hexDigitValue(char32_t c)
{
    if (c >= U'0' && c <= U'9')
        return int(c - U'0');
    if (c >= U'a' && c <= U'f')
        return int(c - U'a' + 10);
    if (c >= U'A' && c <= U'F')
        return int(c - U'A' + 10);
    return -1;
}

} // namespace AgentLoop
