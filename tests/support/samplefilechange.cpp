#include "samplefilechange.h"

using namespace Qt::StringLiterals;

namespace AgentLoop {

FileChange sampleFileChange()
{
    FileChange change;
    change.path = u"src/main.cpp"_s;
    change.absolutePath = u"/home/user/project/src/main.cpp"_s;
    change.encoding = u"GB18030, CRLF"_s;
    change.diff = u"@@ -3,5 +3,6 @@\n"
                  u" int main()\n"
                  u" {\n"
                  u"-    std::puts(\"hello\");\n"
                  u"+    std::puts(\"你好，世界\");\n"
                  u"+    std::puts(\"再见\");\n"
                  u"     return 0;\n"
                  u" }\n"_s;
    change.addedLines = 2;
    change.removedLines = 1;
    return change;
}

} // namespace AgentLoop
