// libFuzzer target: the shell tool's arguments as a prompt-injected model may write them, from
// parsing to what the approval shows. The input is the arguments text. Whatever it is, preparing
// must not crash or hang, and what an approval would show must hold no character that a terminal
// or a text layout would interpret (a property checked here, so the fuzzer stops on a violation).
#include "base/displaytext.h"
#include "tools/commandrunner.h"
#include "tools/shelltool.h"

#include <QChar>

#include <cstdlib>

using namespace AgentLoop;

namespace {

// Each character as displayText() judges it where it stands: a variation selector right after
// an emoji or a Chinese character is shown (it picks the glyph), anywhere else it would hide.
bool isSafeToShow(const QString &shown, bool lineFeedsKept)
{
    char32_t previous = 0;
    for (const char32_t c : QStringView(shown).toUcs4()) {
        const bool keptWhitespace = (c == U'\n' || c == U'\t') && lineFeedsKept;
        if (!keptWhitespace && isEscapedForDisplay(c, previous))
            return false;
        previous = c;
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ShellTool tool(std::make_shared<ProcessCommandRunner>(), {});
    const QString arguments = QString::fromUtf8(reinterpret_cast<const char *>(data),
                                                qsizetype(size));
    const Preparation preparation = tool.prepare({QStringLiteral("call_1"), tool.name(), arguments});

    DisplayOptions options;
    options.markLookAlikes = true;
    options.maxLength = 65536;
    const QString shown
            = std::holds_alternative<PreparedCall>(preparation)
                      ? displayText(tool.preview(std::get<PreparedCall>(preparation).arguments).text,
                                    options)
                                .text
                      : displayText(std::get<ToolResult>(preparation).content, options).text;
    if (!isSafeToShow(shown, true) || !isSafeToShow(displayedLine(arguments), false))
        std::abort();
    return 0;
}
