#pragma once
// Stable keys for the choices of a combo box: recipes, lessons and `scalex render --set` name a
// choice by its key ("fig5"), so that rewording the text on screen breaks no saved project. The
// text still selects the choice (recipes saved before keys existed, and people typing it).
#include <QComboBox>
#include <QString>
#include <initializer_list>

namespace scalex::gui {

inline constexpr int kChoiceKeyRole = Qt::UserRole + 40;

// Keys for the box's items in order; one key per item.
inline void setChoiceKeys(QComboBox* box, std::initializer_list<const char*> keys) {
    int i = 0;
    for (const char* key : keys) box->setItemData(i++, QString::fromLatin1(key), kChoiceKeyRole);
}

inline QString choiceKey(const QComboBox* box, int index) { return box->itemData(index, kChoiceKeyRole).toString(); }

}  // namespace scalex::gui
