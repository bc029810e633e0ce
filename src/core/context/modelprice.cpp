#include "context/modelprice.h"

#include <QLocale>

#include <algorithm>

#include <cmath>

namespace AgentLoop {

QString formatCost(double amount, const QString &currency)
{
    // Two decimals from a cent up; below that, two significant digits (at most six decimals).
    int decimals = 2;
    if (amount > 0 && amount < 0.01)
        decimals = std::min(6, 1 - int(std::floor(std::log10(amount))));
    const QString figure = QLocale().toString(amount, 'f', decimals);
    if (currency.isEmpty())
        return figure;
    // A code ("USD", "CNY") is followed by a space; a sign ("$", "¥") sticks to the figure.
    const bool isCode = currency.size() > 1
                        && std::all_of(currency.cbegin(), currency.cend(), [](QChar c) {
                               return c.isLetter();
                           });
    return isCode ? currency + u' ' + figure : currency + figure;
}

} // namespace AgentLoop
