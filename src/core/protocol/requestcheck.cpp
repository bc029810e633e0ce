#include "protocol/requestcheck.h"

#include "protocol/jsonschema.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

struct RequestCheckText
{
    Q_DECLARE_TR_FUNCTIONS(RequestCheck)
};

// Written as JSON for reading; parsed once.
constexpr char schemaText[] = R"json({
  "type": "object",
  "required": ["model", "messages"],
  "properties": {
    "model": {"type": "string", "minLength": 1},
    "messages": {
      "type": "array",
      "minItems": 1,
      "items": {
        "type": "object",
        "required": ["role"],
        "properties": {
          "role": {"enum": ["system", "developer", "user", "assistant", "tool", "function"]},
          "content": {
            "anyOf": [
              {"type": ["string", "null"]},
              {"type": "array", "items": {"type": "object", "required": ["type"],
                                          "properties": {"type": {"type": "string"}}}}
            ]
          },
          "name": {"type": "string"},
          "tool_call_id": {"type": "string"},
          "tool_calls": {
            "type": "array",
            "items": {
              "type": "object",
              "required": ["id", "type", "function"],
              "properties": {
                "id": {"type": "string"},
                "type": {"enum": ["function"]},
                "function": {
                  "type": "object",
                  "required": ["name", "arguments"],
                  "properties": {"name": {"type": "string"}, "arguments": {"type": "string"}}
                }
              }
            }
          }
        }
      }
    },
    "stream": {"type": ["boolean", "null"]},
    "stream_options": {
      "type": ["object", "null"],
      "properties": {"include_usage": {"type": "boolean"}}
    },
    "max_tokens": {"type": ["integer", "null"]},
    "max_completion_tokens": {"type": ["integer", "null"]},
    "n": {"type": ["integer", "null"], "minimum": 1, "maximum": 128},
    "temperature": {"type": ["number", "null"], "minimum": 0, "maximum": 2},
    "top_p": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
    "presence_penalty": {"type": ["number", "null"], "minimum": -2, "maximum": 2},
    "frequency_penalty": {"type": ["number", "null"], "minimum": -2, "maximum": 2},
    "seed": {"type": ["integer", "null"]},
    "user": {"type": "string"},
    "stop": {"anyOf": [{"type": ["string", "null"]},
                       {"type": "array", "items": {"type": "string"}, "maxItems": 4}]},
    "parallel_tool_calls": {"type": "boolean"},
    "tools": {
      "type": "array",
      "items": {
        "type": "object",
        "required": ["type", "function"],
        "properties": {
          "type": {"enum": ["function"]},
          "function": {
            "type": "object",
            "required": ["name"],
            "properties": {
              "name": {"type": "string", "pattern": "^[a-zA-Z0-9_-]{1,64}$"},
              "description": {"type": "string"},
              "parameters": {"type": "object"},
              "strict": {"type": ["boolean", "null"]}
            }
          }
        }
      }
    },
    "tool_choice": {
      "anyOf": [
        {"enum": ["none", "auto", "required"]},
        {"type": "object", "required": ["type", "function"],
         "properties": {"type": {"enum": ["function"]},
                        "function": {"type": "object", "required": ["name"],
                                     "properties": {"name": {"type": "string"}}}}}
      ]
    }
  }
})json";

// Line and column (from 1) of a UTF-8 byte offset.
std::pair<int, int> lineAndColumn(const QByteArray &text, qsizetype offset)
{
    offset = std::clamp<qsizetype>(offset, 0, text.size());
    int line = 1;
    qsizetype lineStart = 0;
    for (qsizetype i = 0; i < offset; ++i) {
        if (text.at(i) == '\n') {
            ++line;
            lineStart = i + 1;
        }
    }
    // Columns count characters, not bytes: UTF-8 continuation bytes are not counted.
    int column = 1;
    for (qsizetype i = lineStart; i < offset; ++i) {
        if ((static_cast<unsigned char>(text.at(i)) & 0xC0) != 0x80)
            ++column;
    }
    return {line, column};
}

} // namespace

const QJsonObject &chatRequestSchema()
{
    static const QJsonObject schema = QJsonDocument::fromJson(QByteArray(schemaText)).object();
    return schema;
}

RequestCheck checkRequestBody(const QByteArray &body)
{
    RequestCheck check;
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    if (error.error != QJsonParseError::NoError) {
        // Qt's offset is just past the character that broke the document: point at it.
        const auto [line, column] = lineAndColumn(body, std::max(0, error.offset - 1));
        check.problems.append({RequestProblem::Syntax,
                               RequestCheckText::tr("Line %1, column %2: %3")
                                       .arg(line)
                                       .arg(column)
                                       .arg(error.errorString()),
                               line,
                               column});
        return check;
    }
    if (!document.isObject()) {
        check.problems.append({RequestProblem::Schema,
                               RequestCheckText::tr("The body must be a JSON object."),
                               0,
                               0});
        return check;
    }
    const QJsonObject request = document.object();
    static const JsonSchema schema(chatRequestSchema());
    for (const SchemaViolation &violation : schema.validate(request)) {
        check.problems.append(
                {RequestProblem::Schema,
                 RequestCheckText::tr("%1: %2").arg(violation.path.isEmpty()
                                                            ? RequestCheckText::tr("the body")
                                                            : violation.path,
                                                    violation.message),
                 0,
                 0});
    }
    const QJsonValue messages = request.value(u"messages"_s);
    if (!messages.isArray())
        return check;
    Result<History> history = History::fromJson(messages.toArray());
    if (!history) {
        check.problems.append({RequestProblem::Schema,
                               RequestCheckText::tr("messages: %1").arg(history.error().message),
                               0,
                               0});
        return check;
    }
    if (const Result<void> pairing = history->checkPairing(); !pairing) {
        check.problems.append({RequestProblem::Pairing,
                               RequestCheckText::tr("Pairing rule: %1").arg(pairing.error().message),
                               0,
                               0});
    }
    check.history = std::move(*history);
    return check;
}

} // namespace AgentLoop
