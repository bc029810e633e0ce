#pragma once

#include "protocol/completion.h"

#include <QHash>
#include <QString>

namespace AgentLoop {

// What a model costs, as the user entered it from the provider's price list: per million prompt
// (input) and completion (output) tokens, in a currency of the user's choosing ("$", "¥", "€",
// "USD"...). Nothing here is looked up: providers change prices, and a wrong figure shown as
// money is worse than none.
struct ModelPrice
{
    double inputPerMillion = 0;
    double outputPerMillion = 0;
    QString currency;

    bool isSet() const { return inputPerMillion > 0 || outputPerMillion > 0; }
    // What the tokens of one answer cost.
    double costOf(const Usage &usage) const
    {
        return (double(usage.promptTokens) * inputPerMillion
                + double(usage.completionTokens) * outputPerMillion)
               / 1'000'000.0;
    }
    friend bool operator==(const ModelPrice &, const ModelPrice &) = default;
};

// The prices the user entered, by model id.
using ModelPrices = QHash<QString, ModelPrice>;

// An amount of money as the inspector shows it: the currency before the figure, with enough
// digits that a fraction of a cent is not shown as nothing ("$0.0042", "¥1.25", "$12.40").
QString formatCost(double amount, const QString &currency);

} // namespace AgentLoop
