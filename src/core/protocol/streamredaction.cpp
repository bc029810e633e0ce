#include "protocol/streamredaction.h"

#include "base/redaction.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

// One `data:` line of the body that holds a JSON chunk.
struct Event
{
    qsizetype begin = 0; // of the line in the body
    qsizetype end = 0;   // of the line, before its "\r\n" or "\n"
    QJsonObject chunk;
    bool changed = false;
};

// One delta text: in which event and where in its chunk, and where in the joined text.
struct Piece
{
    qsizetype event = 0;
    qsizetype choice = 0;    // position in "choices"
    QString field;           // of delta: content, reasoning_content, reasoning; or "arguments"
    qsizetype toolCall = -1; // position in delta.tool_calls, for "arguments"
    qsizetype begin = 0;     // in the joined text
    QString text;
};

const QStringList textFields{u"content"_s, u"reasoning_content"_s, u"reasoning"_s};

QList<Event> eventsOf(const QByteArray &body)
{
    QList<Event> events;
    for (qsizetype begin = 0; begin < body.size();) {
        qsizetype next = body.indexOf('\n', begin);
        if (next < 0)
            next = body.size();
        qsizetype end = next;
        if (end > begin && body.at(end - 1) == '\r')
            --end;
        const QByteArrayView line(body.constData() + begin, end - begin);
        if (line.startsWith("data:")) {
            const QJsonDocument document = QJsonDocument::fromJson(
                    line.sliced(5).trimmed().toByteArray());
            if (document.isObject())
                events.append({begin, end, document.object(), false});
        }
        begin = next + 1;
    }
    return events;
}

// The delta texts of every stream (a choice's content, its reasoning, each of its tool calls'
// arguments), in the order they arrived.
QMap<QString, QList<Piece>> streamsOf(const QList<Event> &events)
{
    QMap<QString, QList<Piece>> streams;
    const auto add = [&](const QString &stream, Piece piece) {
        QList<Piece> &pieces = streams[stream];
        piece.begin = pieces.isEmpty() ? 0 : pieces.last().begin + pieces.last().text.size();
        pieces.append(std::move(piece));
    };
    for (qsizetype e = 0; e < events.size(); ++e) {
        const QJsonArray choices = events[e].chunk.value(u"choices"_s).toArray();
        for (qsizetype c = 0; c < choices.size(); ++c) {
            const QJsonObject choice = choices[c].toObject();
            const QString index = QString::number(choice.value(u"index"_s).toInteger(c));
            const QJsonObject delta = choice.value(u"delta"_s).toObject();
            for (const QString &field : textFields) {
                if (delta.value(field).isString())
                    add(index + u'/' + field, {e, c, field, -1, 0, delta.value(field).toString()});
            }
            const QJsonArray calls = delta.value(u"tool_calls"_s).toArray();
            for (qsizetype t = 0; t < calls.size(); ++t) {
                const QJsonObject call = calls[t].toObject();
                const QJsonValue arguments = call.value(u"function"_s)[u"arguments"_s];
                if (!arguments.isString())
                    continue;
                add(index + u"/tool/"_s + QString::number(call.value(u"index"_s).toInteger(t)),
                    {e, c, u"arguments"_s, t, 0, arguments.toString()});
            }
        }
    }
    return streams;
}

void setPieceText(QJsonObject &chunk, const Piece &piece, const QString &text)
{
    QJsonArray choices = chunk.value(u"choices"_s).toArray();
    QJsonObject choice = choices[piece.choice].toObject();
    QJsonObject delta = choice.value(u"delta"_s).toObject();
    if (piece.toolCall < 0) {
        delta.insert(piece.field, text);
    } else {
        QJsonArray calls = delta.value(u"tool_calls"_s).toArray();
        QJsonObject call = calls[piece.toolCall].toObject();
        QJsonObject function = call.value(u"function"_s).toObject();
        function.insert(u"arguments"_s, text);
        call.insert(u"function"_s, function);
        calls[piece.toolCall] = call;
        delta.insert(u"tool_calls"_s, calls);
    }
    choice.insert(u"delta"_s, delta);
    choices[piece.choice] = choice;
    chunk.insert(u"choices"_s, choices);
}

QString joined(const QList<Piece> &pieces)
{
    QString text;
    for (const Piece &piece : pieces)
        text += piece.text;
    return text;
}

} // namespace

QByteArray redactedEventStream(QByteArray body, const QStringList &secrets)
{
    QList<Event> events = eventsOf(body);
    const QMap<QString, QList<Piece>> streams = streamsOf(events);
    const QString marker = QString::fromLatin1(redactedMarker);
    for (const QList<Piece> &pieces : streams) {
        const QList<std::pair<qsizetype, qsizetype>> ranges = secretRanges(joined(pieces), secrets);
        if (ranges.isEmpty())
            continue;
        for (const Piece &piece : pieces) {
            const qsizetype pieceEnd = piece.begin + piece.text.size();
            QString text = piece.text;
            bool touched = false;
            // From the last range back, so that the earlier ones keep their offsets.
            for (auto range = ranges.crbegin(); range != ranges.crend(); ++range) {
                const qsizetype from = std::max(range->first, piece.begin);
                const qsizetype to = std::min(range->second, pieceEnd);
                if (from >= to)
                    continue;
                text.replace(from - piece.begin,
                             to - from,
                             range->first >= piece.begin ? marker : QString());
                touched = true;
            }
            if (touched) {
                setPieceText(events[piece.event].chunk, piece, text);
                events[piece.event].changed = true;
            }
        }
    }
    // The changed lines, from the last back, so that the earlier ones keep their offsets.
    for (auto event = events.crbegin(); event != events.crend(); ++event) {
        if (event->changed)
            body.replace(event->begin,
                         event->end - event->begin,
                         "data: " + QJsonDocument(event->chunk).toJson(QJsonDocument::Compact));
    }
    for (const QString &secret : secrets)
        body = redacted(std::move(body), secret);
    return body;
}

bool eventStreamHoldsSecret(const QByteArray &body, const QStringList &secrets)
{
    if (std::any_of(secrets.cbegin(), secrets.cend(), [&](const QString &secret) {
            return containsSecret(body, secret);
        }))
        return true;
    const QMap<QString, QList<Piece>> streams = streamsOf(eventsOf(body));
    return std::any_of(streams.cbegin(), streams.cend(), [&](const QList<Piece> &pieces) {
        return !secretRanges(joined(pieces), secrets).isEmpty();
    });
}

} // namespace AgentLoop
