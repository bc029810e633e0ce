// TEMPORARY (branch gui): a stand-in for the real capability check, which is written in another
// branch; it lists the models only, so that the GUI links and its tests run. Drop at merge.
#include "provider/capabilitycheck.h"

#include "provider/chatclient.h"

#include <QCoreApplication>

namespace AgentLoop {

namespace {
struct CapabilityCheckText
{
    Q_DECLARE_TR_FUNCTIONS(CapabilityCheck)
};
} // namespace

class CapabilityCheck::Run
{};

const CapabilityFinding *CapabilityReport::finding(CapabilityFinding::Capability capability) const
{
    for (const CapabilityFinding &found : findings) {
        if (found.capability == capability)
            return &found;
    }
    return nullptr;
}

CapabilityCheck::CapabilityCheck(QObject *parent)
    : QObject(parent)
    , m_client(new ChatClient(this))
{
    connect(m_client, &ChatClient::modelsListed, this, [this](const QStringList &models) {
        m_run = nullptr;
        CapabilityReport report;
        report.models = models;
        report.models.sort();
        report.findings << CapabilityFinding{CapabilityFinding::Reachable,
                                             CapabilityFinding::Yes,
                                             CapabilityCheckText::tr("Reachable: yes"),
                                             {}};
        report.findings << CapabilityFinding{CapabilityFinding::KeyAccepted,
                                             CapabilityFinding::Yes,
                                             CapabilityCheckText::tr("Key: accepted"),
                                             {}};
        const QString model = m_client->settings().model;
        const bool listed = models.contains(model);
        report.findings << CapabilityFinding{CapabilityFinding::ModelExists,
                                             listed ? CapabilityFinding::Yes : CapabilityFinding::No,
                                             listed ? CapabilityCheckText::tr("Model: listed")
                                                    : CapabilityCheckText::tr("Model: not listed"),
                                             model};
        report.ok = true;
        emit finished(report);
    });
    connect(m_client, &ChatClient::modelsFailed, this, [this](const Error &error) {
        m_run = nullptr;
        CapabilityReport report;
        const bool answered = error.kind == Error::Http;
        report.findings << CapabilityFinding{CapabilityFinding::Reachable,
                                             answered ? CapabilityFinding::Yes
                                                      : CapabilityFinding::No,
                                             answered ? CapabilityCheckText::tr("Reachable: yes")
                                                      : CapabilityCheckText::tr("Reachable: no"),
                                             answered ? QString() : error.toString()};
        if (error.httpStatus == 401 || error.httpStatus == 403) {
            report.findings << CapabilityFinding{CapabilityFinding::KeyAccepted,
                                                 CapabilityFinding::No,
                                                 CapabilityCheckText::tr("Key: refused"),
                                                 error.toString()};
        }
        report.error = error;
        emit finished(report);
    });
}

void CapabilityCheck::start(const ProviderSettings &settings)
{
    cancel();
    m_client->setSettings(settings);
    static Run running;
    m_run = &running;
    emit progress(CapabilityCheckText::tr("Listing the models…"));
    m_client->listModels();
}

void CapabilityCheck::cancel()
{
    m_client->abort();
    m_run = nullptr;
}

bool CapabilityCheck::isRunning() const
{
    return m_run != nullptr;
}

} // namespace AgentLoop
