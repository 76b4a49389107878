"""Every user-facing string of the bot, in Russian (the default) and English.

``STRINGS`` maps a key to its texts per language; :func:`t` formats one. Placeholders use
``str.format`` syntax. The texts here are HTML for Telegram's HTML parse mode: whoever fills a
placeholder with user-supplied text escapes it first (``bot.render`` does).
"""

from __future__ import annotations

from collections.abc import Mapping

DEFAULT_LANGUAGE = "ru"
LANGUAGES = ("ru", "en")

STRINGS: dict[str, dict[str, str]] = {
    # ------------------------------------------------------------------ general
    "game.title": {"ru": "Очко", "en": "Ochko"},
    "player.unknown": {"ru": "Игрок {id}", "en": "Player {id}"},
    "hidden_card": {"ru": "🂠", "en": "🂠"},
    "more": {"ru": "… и ещё {count}", "en": "… and {count} more"},
    "yes": {"ru": "да", "en": "yes"},
    "no": {"ru": "нет", "en": "no"},
    "on": {"ru": "вкл", "en": "on"},
    "off": {"ru": "выкл", "en": "off"},
    # ------------------------------------------------------------------ presets
    "preset.classic36.name": {"ru": "Классика, 36 карт", "en": "Classic, 36 cards"},
    "preset.home36.name": {"ru": "Домашнее, 36 карт", "en": "Home rules, 36 cards"},
    "preset.big54.name": {"ru": "Большая колода, 54 карты", "en": "Big deck, 54 cards"},
    "preset.twodecks104.name": {"ru": "Две колоды, 104 карты", "en": "Two decks, 104 cards"},
    "preset.classic36.summary": {
        "ru": "Валет 2, дама 3, король 4, туз 11. Банкир сам назначает банк.\n"
        "Каждый по очереди ставит (до ва-банка) и сразу берёт карты; очко и золотое очко "
        "(два туза) выигрывают сразу.\nВидна нижняя карта колоды; можно брать втёмную.",
        "en": "Jack 2, queen 3, king 4, ace 11. The banker names the bank.\n"
        "Each player in turn stakes (up to the whole bank) and draws at once; 21 and the "
        "golden point (two aces) win at once.\nThe bottom card is shown; dark draws allowed.",
    },
    "preset.home36.summary": {
        "ru": "Валет 2, дама 3, король 4, туз 11. Банкир ставит в банк всё, что имеет.\n"
        "Сначала все ставят (вместе не больше банка), потом берут карты; очко платится сразу.\n"
        "Перебор стоит ставки и штрафа; можно брать втёмную.",
        "en": "Jack 2, queen 3, king 4, ace 11. The banker puts up everything he has.\n"
        "Everyone stakes first (together at most the bank), then draws; 21 pays at once.\n"
        "A bust costs the stake plus a fine; dark draws allowed.",
    },
    "preset.big54.summary": {
        "ru": "Как домашнее, но колода 54 карты: двойки–тузы и два джокера.\n"
        "Джокер — любая карта от 1 до 11, как выгоднее.\n"
        "Перебор стоит ставки и штрафа; можно брать втёмную.",
        "en": "Like home rules, with a 54-card deck: twos to aces and two jokers.\n"
        "A joker counts anything from 1 to 11, whichever is best.\n"
        "A bust costs the stake plus a fine; dark draws allowed.",
    },
    "preset.twodecks104.summary": {
        "ru": "Две колоды по 52, картинки по 10, туз 1 или 11. Все ставят, потом по две карты.\n"
        "Очко с раздачи: у банкира — забирает все ставки, у игрока — выплата вдвое.\n"
        "Банкир добирает первым; банк переходит каждый раунд.",
        "en": "Two 52-card decks, faces 10, ace 1 or 11. Everyone stakes, then gets two cards.\n"
        "A natural: the banker's takes every stake, a player's is paid double.\n"
        "The banker draws first; the bank passes every round.",
    },
    # ------------------------------------------------------------------ lobby
    "lobby.header": {
        "ru": "🃏 <b>Очко</b> — собираем стол",
        "en": "🃏 <b>Ochko</b> — taking seats",
    },
    "lobby.preset": {"ru": "Правила: <b>{preset}</b>", "en": "Rules: <b>{preset}</b>"},
    "lobby.players": {
        "ru": "Игроки ({count} из {maximum}):",
        "en": "Players ({count} of {maximum}):",
    },
    "lobby.empty": {
        "ru": "Пока никого — жмите «Сесть за стол».",
        "en": "Nobody yet — press «Take a seat».",
    },
    "lobby.creator": {"ru": "открыл стол", "en": "host"},
    "lobby.private_hint": {
        "ru": "✉ — карты придут в личку. Остальным: откройте чат с ботом, "
        "иначе свои карты смотрите кнопкой «👁 Мои карты».",
        "en": "✉ — cards come in a private chat. Others: open a chat with the bot, "
        "or see your cards with «👁 My cards».",
    },
    "lobby.need_more": {
        "ru": "Для начала нужно ещё игроков: {count}.",
        "en": "Players still needed to start: {count}.",
    },
    "lobby.ready": {
        "ru": "Можно начинать: «▶ Начать» или /deal.",
        "en": "Ready to start: «▶ Start» or /deal.",
    },
    "lobby.full": {"ru": "Мест больше нет.", "en": "The table is full."},
    # ------------------------------------------------------------------ buttons
    "btn.join": {"ru": "🪑 Сесть за стол", "en": "🪑 Take a seat"},
    "btn.leave": {"ru": "🚪 Выйти", "en": "🚪 Leave"},
    "btn.start": {"ru": "▶ Начать", "en": "▶ Start"},
    "btn.cancel": {"ru": "✖ Отменить", "en": "✖ Cancel"},
    "btn.open_private": {"ru": "✉ Карты в личку", "en": "✉ Cards in private"},
    "btn.bank_amount": {"ru": "🏦 {amount}", "en": "🏦 {amount}"},
    "btn.bank_all": {"ru": "🏦 Всё: {amount}", "en": "🏦 All: {amount}"},
    "btn.decline_bank": {"ru": "🙅 Не банкую", "en": "🙅 Decline"},
    "btn.stake": {"ru": "{amount}", "en": "{amount}"},
    "btn.va_bank": {"ru": "Ва-банк {amount}", "en": "All the bank {amount}"},
    "btn.stake_max": {"ru": "Макс. {amount}", "en": "Max {amount}"},
    "btn.hit": {"ru": "🃏 Ещё карту", "en": "🃏 Hit"},
    "btn.stand": {"ru": "✋ Хватит", "en": "✋ Stand"},
    "btn.dark": {"ru": "🌑 Втёмную", "en": "🌑 Dark card"},
    "btn.peek": {"ru": "👁 Мои карты", "en": "👁 My cards"},
    "btn.next": {"ru": "▶ Следующий раунд", "en": "▶ Next round"},
    "btn.pass_bank": {"ru": "🔁 Передать банк", "en": "🔁 Pass the bank"},
    "btn.close": {"ru": "✖ Закрыть", "en": "✖ Close"},
    "btn.odds": {"ru": "💡", "en": "💡"},
    # ------------------------------------------------------------------ odds (💡, /odds)
    "odds.alert": {
        "ru": "Перебор: {bust} · Очко: {twenty_one}",
        "en": "Bust: {bust} · 21: {twenty_one}",
    },
    "odds.part": {"ru": "{count} из {total} ({percent}%)", "en": "{count} of {total} ({percent}%)"},
    "odds.part_percent": {"ru": "{percent}%", "en": "{percent}%"},
    "odds.no_cards": {"ru": "Карт для сдачи нет.", "en": "No cards are left to deal."},
    "odds.not_drawing": {
        "ru": "Шансы показываются тому, кто сейчас берёт карты.",
        "en": "The odds are for whoever is drawing now.",
    },
    "odds.sent_private": {
        "ru": "Шансы отправлены вам в личку.",
        "en": "The odds were sent to you privately.",
    },
    "odds.press_button": {
        "ru": "Нажмите 💡 под столом: шансы увидите только вы.",
        "en": "Press 💡 under the table: only you will see the odds.",
    },
    # ------------------------------------------------------------------ table
    "table.header": {
        "ru": "🃏 <b>Очко</b> · раунд {round} · {preset}",
        "en": "🃏 <b>Ochko</b> · round {round} · {preset}",
    },
    "table.header_first": {
        "ru": "🃏 <b>Очко</b> · {preset}",
        "en": "🃏 <b>Ochko</b> · {preset}",
    },
    "table.banker": {
        "ru": "🏦 Банкир: {name} · в банке <b>{bank}</b>",
        "en": "🏦 Banker: {name} · bank <b>{bank}</b>",
    },
    "table.no_banker": {"ru": "🏦 Банкира нет", "en": "🏦 No banker"},
    "table.bottom": {"ru": "🔻 Нижняя карта: {card}", "en": "🔻 Bottom card: {card}"},
    "table.banker_row": {"ru": "🏦 {name}: {cards}", "en": "🏦 {name}: {cards}"},
    "table.player_row": {"ru": "{place}. {name} — {details}", "en": "{place}. {name} — {details}"},
    "table.stake": {"ru": "ставка {amount}", "en": "stake {amount}"},
    "table.balance": {"ru": "💰 {amount}", "en": "💰 {amount}"},
    "table.no_cards": {"ru": "без карт", "en": "no cards"},
    "table.total": {"ru": "= {total}", "en": "= {total}"},
    "table.waiting_next": {
        "ru": "🪑 Ждут следующего раунда: {names}",
        "en": "🪑 Waiting for the next round: {names}",
    },
    "table.time_left": {"ru": "⏱ осталось {seconds} с", "en": "⏱ {seconds} s left"},
    "table.news": {"ru": "📣 {text}", "en": "📣 {text}"},
    "status.waiting": {"ru": "ждёт", "en": "waiting"},
    "status.staked": {"ru": "ставка сделана", "en": "staked"},
    "status.on_turn": {"ru": "⏳ ходит", "en": "⏳ on turn"},
    "status.stood": {"ru": "✋ хватит", "en": "✋ stood"},
    "status.bust": {"ru": "💥 перебор", "en": "💥 bust"},
    "status.twenty_one": {"ru": "✅ очко", "en": "✅ 21"},
    "status.golden": {"ru": "🏆 золотое очко", "en": "🏆 golden point"},
    "status.natural": {"ru": "✅ очко с раздачи", "en": "✅ natural 21"},
    "status.won": {"ru": "✅ выиграл", "en": "✅ won"},
    "status.lost": {"ru": "❌ проиграл", "en": "❌ lost"},
    "status.out": {"ru": "— не играет", "en": "— sits out"},
    "status.leaving": {"ru": "🚪 уйдёт после раунда", "en": "🚪 leaves after the round"},
    "status.dark": {"ru": "🌑 втёмную", "en": "🌑 dark card"},
    "prompt.bank": {
        "ru": "👉 {name}: назначьте банк от 1 до {maximum}",
        "en": "👉 {name}: name the bank, 1 to {maximum}",
    },
    "prompt.stake": {
        "ru": "👉 {name}: ставка от {minimum} до {maximum}",
        "en": "👉 {name}: stake {minimum} to {maximum}",
    },
    "prompt.draw": {"ru": "👉 {name}: ещё или хватит?", "en": "👉 {name}: hit or stand?"},
    "prompt.banker": {
        "ru": "👉 Банкир {name}: ещё или хватит?",
        "en": "👉 Banker {name}: hit or stand?",
    },
    "prompt.round_over": {
        "ru": "Раунд окончен. Следующий раунд — «▶ Следующий раунд» или /deal.",
        "en": "The round is over. Next one: «▶ Next round» or /deal.",
    },
    "prompt.ended": {"ru": "🏁 Игра окончена.", "en": "🏁 The game is over."},
    # ------------------------------------------------------------------ result
    "result.header": {
        "ru": "🏁 <b>Раунд {round}: вскрываемся</b>",
        "en": "🏁 <b>Round {round}: showdown</b>",
    },
    "result.banker": {
        "ru": "🏦 Банкир {name}: {cards} — <b>{total}</b>",
        "en": "🏦 Banker {name}: {cards} — <b>{total}</b>",
    },
    "result.row": {
        "ru": "{name}: {cards} — {total} · {payment}",
        "en": "{name}: {cards} — {total} · {payment}",
    },
    "result.out_row": {"ru": "{name}: не играл", "en": "{name}: sat out"},
    "result.bust": {"ru": "перебор 💥", "en": "bust 💥"},
    "result.twenty_one": {"ru": "очко ✅", "en": "21 ✅"},
    "result.golden": {"ru": "золотое очко 🏆", "en": "golden point 🏆"},
    "result.natural": {"ru": "с раздачи", "en": "natural"},
    "result.dark": {"ru": "втёмную", "en": "dark"},
    "pay.win": {"ru": "<b>+{amount}</b>", "en": "<b>+{amount}</b>"},
    "pay.lose": {"ru": "−{amount}", "en": "−{amount}"},
    "pay.lose_fine": {"ru": "−{amount} (штраф {fine})", "en": "−{amount} (fine {fine})"},
    "pay.push": {"ru": "при своих", "en": "push"},
    "result.banker_net": {"ru": "Банкир за раунд: {amount}", "en": "Banker this round: {amount}"},
    "result.bank": {"ru": "🏦 В банке: <b>{bank}</b>", "en": "🏦 Bank: <b>{bank}</b>"},
    "result.balances": {"ru": "💰 Балансы:", "en": "💰 Balances:"},
    "result.balance_row": {"ru": "{name} — {amount}", "en": "{name} — {amount}"},
    # ------------------------------------------------------------------ provably fair deck
    "table.commitment": {"ru": "🔒 Колода: {prefix}…", "en": "🔒 Deck: {prefix}…"},
    "result.deck": {
        "ru": "🔓 Колода{n}: <code>{commitment}</code>\nСоль: <code>{salt}</code>",
        "en": "🔓 Deck{n}: <code>{commitment}</code>\nSalt: <code>{salt}</code>",
    },
    "result.verify_hint": {
        "ru": "Проверить колоду: /verify {round}",
        "en": "Check the deck: /verify {round}",
    },
    "verify.header": {
        "ru": "🔐 <b>Проверка колоды — раунд {round}</b>",
        "en": "🔐 <b>Deck check — round {round}</b>",
    },
    "verify.shuffle": {"ru": "Колода {n}", "en": "Deck {n}"},
    "verify.recycled": {
        "ru": "Колода {n} (сброс перетасован)",
        "en": "Deck {n} (discards reshuffled)",
    },
    "verify.commitment": {
        "ru": "Хэш: <code>{value}</code>",
        "en": "Commitment: <code>{value}</code>",
    },
    "verify.salt": {"ru": "Соль: <code>{value}</code>", "en": "Salt: <code>{value}</code>"},
    "verify.order": {"ru": "Порядок: <code>{value}</code>", "en": "Order: <code>{value}</code>"},
    "verify.dealt": {
        "ru": "Роздано ({count}): <code>{value}</code>",
        "en": "Dealt ({count}): <code>{value}</code>",
    },
    "verify.hash_ok": {"ru": "хэш совпадает ✅", "en": "commitment matches ✅"},
    "verify.hash_bad": {"ru": "хэш НЕ совпадает ❌", "en": "commitment does NOT match ❌"},
    "verify.deal_ok": {"ru": "карты шли по порядку ✅", "en": "cards dealt in order ✅"},
    "verify.deal_bad": {"ru": "карты НЕ по порядку ❌", "en": "cards NOT dealt in order ❌"},
    "verify.ok": {"ru": "Итог: ✅ колода честная", "en": "Verdict: ✅ the deck was fair"},
    "verify.bad": {"ru": "Итог: ❌ проверка не прошла", "en": "Verdict: ❌ the check failed"},
    "verify.how": {
        "ru": "Проверить самому: SHA-256 строки «ochko-v1|соль|порядок» (docs/fairness.md).",
        "en": "Check it yourself: SHA-256 of “ochko-v1|salt|order” (docs/fairness.md).",
    },
    "verify.not_revealed": {
        "ru": "🔒 Колода раунда {round} раскрывается после вскрытия карт.",
        "en": "🔒 The deck of round {round} is revealed after the showdown.",
    },
    "verify.no_round": {
        "ru": "Раунда {round} в этой игре не было. Сыграно раундов: {played}.",
        "en": "This game has no round {round}. Rounds played: {played}.",
    },
    "verify.none_yet": {
        "ru": "🔒 Ни один раунд ещё не вскрыт: колода раскрывается после вскрытия карт.",
        "en": "🔒 No round has been settled yet: the deck is revealed after the showdown.",
    },
    "verify.legacy": {
        "ru": "Раунд {round} сдан до того, как бот начал публиковать хэш колоды.",
        "en": "Round {round} was dealt before the bot published deck commitments.",
    },
    "verify.no_game": {
        "ru": "Нет игры, колоду которой можно проверить.",
        "en": "There is no game whose deck could be checked.",
    },
    "cmd.verify": {
        "ru": "проверить колоду раунда: /verify [раунд]",
        "en": "check a round's deck: /verify [round]",
    },
    # ------------------------------------------------------------------ end of session
    "end.header": {"ru": "🏁 <b>Игра окончена</b>", "en": "🏁 <b>Game over</b>"},
    "end.reason.ended": {"ru": "Игру завершили.", "en": "The game was ended."},
    "end.reason.all_dealt": {
        "ru": "Все побывали банкирами.",
        "en": "Everyone has been the banker.",
    },
    "end.reason.no_players": {
        "ru": "Не осталось игроков с фишками.",
        "en": "No players with chips are left.",
    },
    "end.reason.no_banker": {"ru": "Некому держать банк.", "en": "Nobody can hold the bank."},
    "end.reason.other": {"ru": "Игра завершена.", "en": "The game is over."},
    "end.balances": {"ru": "Итоговые балансы:", "en": "Final balances:"},
    "end.new_game": {"ru": "Новая игра — /newgame", "en": "New game — /newgame"},
    # ------------------------------------------------------------------ private hand
    "hand.header": {
        "ru": "🃏 <b>Очко</b> · {chat} · раунд {round}",
        "en": "🃏 <b>Ochko</b> · {chat} · round {round}",
    },
    "hand.header_first": {"ru": "🃏 <b>Очко</b> · {chat}", "en": "🃏 <b>Ochko</b> · {chat}"},
    "hand.chat_fallback": {"ru": "игра №{game}", "en": "game #{game}"},
    "hand.cards": {"ru": "Ваши карты: {cards}", "en": "Your cards: {cards}"},
    "hand.no_cards": {"ru": "Карт пока нет.", "en": "No cards yet."},
    "hand.dark_card": {"ru": "🂠 «втёмную»", "en": "🂠 «dark»"},
    "hand.total": {"ru": "Сумма: <b>{total}</b>", "en": "Total: <b>{total}</b>"},
    "hand.total_dark": {
        "ru": "Сумма открытых: <b>{total}</b> + карта втёмную",
        "en": "Total of the cards you see: <b>{total}</b> + a dark card",
    },
    "hand.stake": {
        "ru": "Ставка: <b>{stake}</b> · баланс: {balance}",
        "en": "Stake: <b>{stake}</b> · balance: {balance}",
    },
    "hand.balance": {"ru": "Баланс: {balance}", "en": "Balance: {balance}"},
    "hand.banker_self": {
        "ru": "🏦 Вы банкир · в банке {bank} · баланс: {balance}",
        "en": "🏦 You are the banker · bank {bank} · balance: {balance}",
    },
    "hand.banker_card": {"ru": "Карты банкира {name}: {cards}", "en": "Banker {name}: {cards}"},
    "hand.bottom": {"ru": "Нижняя карта: {card}", "en": "Bottom card: {card}"},
    "hand.status": {"ru": "Статус: {status}", "en": "Status: {status}"},
    "hand.turn_bank": {
        "ru": "⏳ Ваш ход: назначьте банк от 1 до {maximum}",
        "en": "⏳ Your turn: name the bank, 1 to {maximum}",
    },
    "hand.turn_stake": {
        "ru": "⏳ Ваш ход: ставка от {minimum} до {maximum}",
        "en": "⏳ Your turn: stake {minimum} to {maximum}",
    },
    "hand.turn_draw": {"ru": "⏳ Ваш ход: ещё или хватит?", "en": "⏳ Your turn: hit or stand?"},
    "hand.waiting_for": {"ru": "Сейчас ходит: {name}", "en": "Now on turn: {name}"},
    "hand.not_seated": {"ru": "Вы не за этим столом.", "en": "You are not at this table."},
    # ------------------------------------------------------------------ peek (alerts)
    "peek.cards": {"ru": "Ваши карты: {cards} — {total}", "en": "Your cards: {cards} — {total}"},
    "peek.cards_dark": {
        "ru": "Ваши карты: {cards} — {total} + втёмную",
        "en": "Your cards: {cards} — {total} + a dark card",
    },
    "peek.no_cards": {"ru": "Карт у вас пока нет", "en": "You have no cards yet"},
    "peek.not_playing": {"ru": "Вы не в игре", "en": "You are not in the game"},
    # ------------------------------------------------------------------ news (announce)
    "news.twenty_one": {"ru": "✅ {name}: очко! +{paid}", "en": "✅ {name}: 21! +{paid}"},
    "news.golden": {
        "ru": "🏆 {name}: золотое очко! +{paid}",
        "en": "🏆 {name}: the golden point! +{paid}",
    },
    "news.bust": {"ru": "💥 {name}: перебор, {total}", "en": "💥 {name}: bust, {total}"},
    "news.bank_broken": {
        "ru": "💥 Банк сорван! {name} без банка.",
        "en": "💥 The bank is broken! {name} is out of the bank.",
    },
    "news.bank_passed": {"ru": "🔁 Банк переходит к {name}", "en": "🔁 The bank passes to {name}"},
    "news.bank_declined": {
        "ru": "🙅 {old} не банкует — банк переходит к {name}",
        "en": "🙅 {old} declines the bank — it passes to {name}",
    },
    "news.bank_nobody": {"ru": "🔁 Банк передать некому", "en": "🔁 Nobody can take the bank"},
    "news.bank_returned": {
        "ru": "{name} забирает из банка {amount}",
        "en": "{name} takes {amount} back from the bank",
    },
    "news.banker_lot": {"ru": "🎲 По жребию банкует {name}", "en": "🎲 By lot, {name} banks"},
    "news.bank_set": {
        "ru": "🏦 {name} ставит в банк {amount}",
        "en": "🏦 {name} puts up a bank of {amount}",
    },
    "news.joined": {"ru": "🪑 {name} садится за стол", "en": "🪑 {name} takes a seat"},
    "news.left": {"ru": "🚪 {name} выходит из-за стола", "en": "🚪 {name} leaves the table"},
    "news.leave_scheduled": {
        "ru": "🚪 {name} выйдет после раунда",
        "en": "🚪 {name} leaves after this round",
    },
    "news.timeout_stand": {
        "ru": "⏱ {name} не успел — хватит",
        "en": "⏱ {name} ran out of time — stands",
    },
    "news.timeout_out": {
        "ru": "⏱ {name} не успел — пропускает раунд",
        "en": "⏱ {name} ran out of time — sits this round out",
    },
    "news.sat_out": {
        "ru": "{name} пропускает раунд: не хватает фишек",
        "en": "{name} sits out: not enough chips",
    },
    "news.bank_empty": {
        "ru": "{name} пропускает раунд: банк пуст",
        "en": "{name} sits out: the bank is empty",
    },
    "news.naturals_banker": {
        "ru": "🃏 У банкира {name} очко с раздачи — все ставки его",
        "en": "🃏 Banker {name} has a natural 21 — takes every stake",
    },
    "news.naturals_players": {
        "ru": "🃏 Очко с раздачи: {names} — выплата вдвое",
        "en": "🃏 Natural 21: {names} — paid double",
    },
    "news.reshuffled": {
        "ru": "🔄 Колода кончилась — отбой перетасован",
        "en": "🔄 The stock ran out — the discards are reshuffled",
    },
    "news.banker_turn": {"ru": "🏦 Банкир {name} берёт карты", "en": "🏦 Banker {name} draws"},
    "news.max_cards": {
        "ru": "{name}: больше карт брать нельзя",
        "en": "{name}: no more cards allowed",
    },
    "news.dark": {"ru": "🌑 {name} берёт карту втёмную", "en": "🌑 {name} takes a dark card"},
    "news.session_ended": {"ru": "🏁 Игра окончена", "en": "🏁 The game is over"},
    # ------------------------------------------------------------------ refusals (alerts)
    "refusal.not_your_turn": {"ru": "Сейчас не ваш ход.", "en": "It is not your turn."},
    "refusal.wrong_phase": {
        "ru": "Сейчас так нельзя — игра на другом этапе.",
        "en": "Not now — the game is at another stage.",
    },
    "refusal.amount_out_of_range": {
        "ru": "Можно от {minimum} до {maximum}.",
        "en": "Allowed: {minimum} to {maximum}.",
    },
    "refusal.amount_none": {
        "ru": "Сейчас сумму назвать нельзя: нет места в банке или фишек.",
        "en": "No amount is possible now: no room in the bank or no chips.",
    },
    "refusal.cannot_afford": {
        "ru": "Не хватает фишек: с учётом штрафа можно не больше {maximum}.",
        "en": "Not enough chips: with the fine, at most {maximum}.",
    },
    "refusal.too_many_cards": {
        "ru": "Больше {maximum} карт в руке не бывает.",
        "en": "A hand holds at most {maximum} cards.",
    },
    "refusal.deck_exhausted": {"ru": "Карты в колоде кончились.", "en": "The deck is exhausted."},
    "refusal.option_disabled": {
        "ru": "В этих правилах так не играют.",
        "en": "These rules do not allow that.",
    },
    "refusal.cannot_pass_bank": {
        "ru": "Сейчас банк передать нельзя.",
        "en": "The bank cannot be passed now.",
    },
    "refusal.cannot_pass_bank_rounds": {
        "ru": "Банк можно передать после {rounds} раундов (сыграно {played}).",
        "en": "The bank can be passed after {rounds} rounds ({played} played).",
    },
    "refusal.game_over": {"ru": "Игра уже окончена.", "en": "The game is already over."},
    "refusal.not_seated": {"ru": "Вы не за столом.", "en": "You are not at the table."},
    "refusal.already_seated": {"ru": "Вы уже за столом.", "en": "You are already seated."},
    "refusal.table_full": {
        "ru": "Стол полон: мест {seats}.",
        "en": "The table is full: {seats} seats.",
    },
    "refusal.not_enough_players": {
        "ru": "Мало игроков с фишками: нужно хотя бы {minimum}.",
        "en": "Too few players with chips: at least {minimum} needed.",
    },
    "refusal.invalid_variant": {
        "ru": "Такие правила не сочетаются.",
        "en": "These rules do not go together.",
    },
    "refusal.illegal_action": {"ru": "Так сейчас нельзя.", "en": "That is not allowed now."},
    "refusal.stale_button": {
        "ru": "Эта кнопка устарела — смотрите свежий стол.",
        "en": "This button is out of date — see the current table.",
    },
    "refusal.foreign_game": {
        "ru": "Эта кнопка от другой игры.",
        "en": "This button belongs to another game.",
    },
    "refusal.no_game": {
        "ru": "В этом чате нет игры. Начните: /newgame",
        "en": "No game in this chat. Start one: /newgame",
    },
    "refusal.not_allowed": {
        "ru": "Это может только создатель стола, банкир или админ.",
        "en": "Only the host, the banker or an admin can do that.",
    },
    "refusal.private_needed": {
        "ru": "Сначала откройте личку с ботом — туда придут ваши карты.",
        "en": "Open a private chat with the bot first — your cards go there.",
    },
    "refusal.bad_amount": {
        "ru": "Ставка — целое число от {minimum} до {maximum}.",
        "en": "The amount is a whole number from {minimum} to {maximum}.",
    },
    "refusal.bad_amount_plain": {
        "ru": "Нужно целое положительное число.",
        "en": "A whole positive number is needed.",
    },
    "refusal.game_exists": {
        "ru": "В этом чате уже идёт игра: /table",
        "en": "A game is already on in this chat: /table",
    },
    "refusal.user_game_limit": {
        "ru": "Вы уже играете за {limit} столами — больше нельзя.",
        "en": "You already play at {limit} tables — that is the limit.",
    },
    "refusal.house_busy": {
        "ru": "Дом уже держит банк за другим столом этого чата — доиграйте там или выключите дом.",
        "en": "The house already banks at another table of this chat — finish there first.",
    },
    "refusal.seated_in_chat": {
        "ru": "Вы уже сидите за другим столом в этом чате — сначала доиграйте там.",
        "en": "You already sit at another table in this chat — finish that game first.",
    },
    "refusal.slow_down": {"ru": "Не так быстро 🙂", "en": "Not so fast 🙂"},
    "refusal.lobby_expired": {
        "ru": "Стол закрыт: давно никто не садился. /newgame",
        "en": "The table expired. /newgame",
    },
    "refusal.generic": {"ru": "Так нельзя.", "en": "That is not possible."},
    # ------------------------------------------------------------------ commands and help
    "help.header_group": {
        "ru": "🃏 <b>Очко</b> — карточная игра «21» для всей группы.",
        "en": "🃏 <b>Ochko</b> — the card game «21» for the whole group.",
    },
    "help.header_private": {
        "ru": "🃏 <b>Очко</b>: добавьте бота в группу и начните игру /newgame. "
        "Сюда будут приходить ваши карты.",
        "en": "🃏 <b>Ochko</b>: add the bot to a group and start a game with /newgame. "
        "Your cards will come here.",
    },
    "help.footer": {
        "ru": "Ход можно делать кнопками или командами. Карты видите только вы.",
        "en": "Play with the buttons or the commands. Only you see your cards.",
    },
    "cmd.newgame": {"ru": "открыть стол [правила]", "en": "open a table [preset]"},
    "cmd.join": {"ru": "сесть за стол", "en": "take a seat"},
    "cmd.leave": {"ru": "выйти из-за стола", "en": "leave the table"},
    "cmd.deal": {"ru": "начать игру / следующий раунд", "en": "start the game / next round"},
    "cmd.bank": {"ru": "назначить банк: /bank 100", "en": "name the bank: /bank 100"},
    "cmd.bet": {"ru": "поставить: /bet 50", "en": "stake: /bet 50"},
    "cmd.hit": {"ru": "ещё карту", "en": "hit"},
    "cmd.stand": {"ru": "хватит", "en": "stand"},
    "cmd.dark": {"ru": "взять карту втёмную", "en": "take a dark card"},
    "cmd.passbank": {"ru": "передать банк или отказаться", "en": "pass or decline the bank"},
    "cmd.table": {"ru": "показать стол заново", "en": "show the table again"},
    "cmd.hand": {"ru": "прислать мои карты в личку", "en": "send my cards privately"},
    "cmd.endgame": {
        "ru": "завершить игру (создатель, банкир, админ)",
        "en": "end the game (host, banker, admin)",
    },
    "cmd.odds": {
        "ru": "шансы перебора и очка на следующей карте (в личку)",
        "en": "the odds of a bust and of 21 on the next card (privately)",
    },
    "cmd.balance": {"ru": "мой баланс", "en": "my balance"},
    "cmd.top": {"ru": "лучшие игроки чата", "en": "the chat's leaderboard"},
    "cmd.stats": {"ru": "моя статистика", "en": "my statistics"},
    "cmd.chart": {
        "ru": "график моего баланса (ответом — чужого)",
        "en": "my balance chart (as a reply: theirs)",
    },
    "cmd.rules": {"ru": "правила [набор]", "en": "the rules [preset]"},
    "cmd.settings": {"ru": "настройки чата (админы)", "en": "chat settings (admins)"},
    "cmd.lang": {"ru": "язык: /lang ru или /lang en", "en": "language: /lang ru or /lang en"},
    "cmd.help": {"ru": "эта справка", "en": "this help"},
    "cmd.start": {"ru": "начать общение с ботом", "en": "start talking to the bot"},
    # ------------------------------------------------------------------ rules text
    "rules.header": {"ru": "📜 <b>{preset}</b> ({name})", "en": "📜 <b>{preset}</b> ({name})"},
    "rules.unknown": {
        "ru": "Нет таких правил. Есть: {presets}",
        "en": "No such preset. Known: {presets}",
    },
    "rules.seats": {
        "ru": "Игроков: от {minimum} до {maximum}, банкир тоже.",
        "en": "Players: {minimum} to {maximum}, banker included.",
    },
    "rules.deck.36": {
        "ru": "Колода: 36 карт (шестёрки–тузы).",
        "en": "Deck: 36 cards (sixes to aces).",
    },
    "rules.deck.54": {
        "ru": "Колода: 52 карты и два джокера.",
        "en": "Deck: 52 cards and two jokers.",
    },
    "rules.deck.104": {"ru": "Колода: две по 52 карты.", "en": "Deck: two 52-card decks."},
    "rules.values.russian": {
        "ru": "Очки: валет 2, дама 3, король 4, туз 11, остальные по номиналу.",
        "en": "Values: jack 2, queen 3, king 4, ace 11, others face value.",
    },
    "rules.values.western": {
        "ru": "Очки: картинки по 10, туз 1 или 11 — как выгоднее, остальные по номиналу.",
        "en": "Values: faces 10, ace 1 or 11 — whichever is better, others face value.",
    },
    "rules.ace_low": {
        "ru": "При переборе туз считается за 1.",
        "en": "On a bust an ace counts 1.",
    },
    "rules.jokers": {
        "ru": "Джокер — любое значение от 1 до 11, как выгоднее.",
        "en": "A joker counts anything from 1 to 11, whichever is best.",
    },
    "rules.bank.named": {
        "ru": "Банк: банкир сам называет сумму (не больше своего баланса).",
        "en": "Bank: the banker names an amount (up to his balance).",
    },
    "rules.bank.all_in": {
        "ru": "Банк: банкир ставит всё, что имеет.",
        "en": "Bank: the banker puts up everything he has.",
    },
    "rules.bank_limit": {"ru": "Банк не больше {limit}.", "en": "The bank is at most {limit}."},
    "rules.deal": {
        "ru": "Раздача: по {count} карт(е) каждому.",
        "en": "First deal: {count} card(s) each.",
    },
    "rules.banker_up": {
        "ru": "Первая карта банкира лежит открыто.",
        "en": "The banker's first card is face up.",
    },
    "rules.bottom": {
        "ru": "Нижняя карта колоды видна всем.",
        "en": "The bottom card of the deck is shown to all.",
    },
    "rules.stakes.per_turn": {
        "ru": "Ставки: каждый по очереди ставит и сразу берёт карты.",
        "en": "Stakes: each player in turn stakes, then draws at once.",
    },
    "rules.stakes.before_draw": {
        "ru": "Ставки: все ставят после раздачи, потом берут карты.",
        "en": "Stakes: everyone stakes after the deal, then draws.",
    },
    "rules.stakes.before_deal": {
        "ru": "Ставки: все ставят до раздачи.",
        "en": "Stakes: everyone stakes before the deal.",
    },
    "rules.cap.bank": {
        "ru": "Ставка — не больше банка (весь банк — ва-банк).",
        "en": "A stake is at most the bank (all of it is «va-bank»).",
    },
    "rules.cap.shared": {
        "ru": "Все ставки вместе — не больше банка; минимум 1 каждому.",
        "en": "All stakes together are at most the bank; at least 1 each.",
    },
    "rules.max_cards": {
        "ru": "В руке не больше {count} карт.",
        "en": "At most {count} cards in a hand.",
    },
    "rules.instant_21": {
        "ru": "Очко (21) выигрывает сразу, банк платит 1:1.",
        "en": "21 wins at once, the bank pays 1:1.",
    },
    "rules.golden": {
        "ru": "Золотое очко — два туза — тоже выигрывает сразу.",
        "en": "The golden point — two aces — wins at once too.",
    },
    "rules.naturals": {
        "ru": "Очко с раздачи: у банкира — все ставки его, у игрока — выплата 2:1.",
        "en": "Natural 21: the banker's takes every stake, a player's is paid 2:1.",
    },
    "rules.fine": {
        "ru": "Перебор: ставка и штраф {percent}% ставки.",
        "en": "Bust: the stake plus a fine of {percent}% of it.",
    },
    "rules.no_fine": {"ru": "Перебор: теряется ставка.", "en": "Bust: the stake is lost."},
    "rules.both_bust": {
        "ru": "Если перебрал банкир, он платит вдвое, а перебравшие с ним квиты.",
        "en": "If the banker busts he pays double; busted players are quits with him.",
    },
    "rules.dark": {
        "ru": "Можно взять карту втёмную: её не видит никто до вскрытия; "
        "перебор втёмную — без штрафа.",
        "en": "A dark card may be taken: nobody sees it until the showdown; "
        "a dark bust has no fine.",
    },
    "rules.no_dark": {"ru": "Втёмную не играют.", "en": "No dark cards."},
    "rules.banker_last": {
        "ru": "Банкир берёт карты последним; больше, чем у банкира, — выигрыш, равно — при своих.",
        "en": "The banker draws last; beat the banker to win, a tie is a push.",
    },
    "rules.banker_first": {
        "ru": "Банкир берёт карты первым, втайне; больше, чем у банкира, — выигрыш, "
        "равно — при своих.",
        "en": "The banker draws first, hidden; beat the banker to win, a tie is a push.",
    },
    "rules.pass.when_broken": {
        "ru": "Банк переходит к следующему слева, когда сорван.",
        "en": "The bank passes to the left when it is broken.",
    },
    "rules.pass.every_round": {
        "ru": "Банк переходит к следующему слева каждый раунд.",
        "en": "The bank passes to the left every round.",
    },
    "rules.pass.voluntary": {
        "ru": "Через {rounds} раунда банкир может передать банк сам.",
        "en": "After {rounds} rounds the banker may pass the bank on.",
    },
    "rules.end_all_dealt": {
        "ru": "Игра кончается, когда все побывали банкирами.",
        "en": "The game ends when everyone has been the banker.",
    },
    "rules.order.clockwise": {
        "ru": "Ходят по кругу от банкира: по часовой.",
        "en": "Turns go clockwise from the banker.",
    },
    "rules.order.counterclockwise": {
        "ru": "Ходят по кругу от банкира: против часовой.",
        "en": "Turns go counterclockwise from the banker.",
    },
    "rules.others": {"ru": "Другие правила: {presets}", "en": "Other presets: {presets}"},
    # ------------------------------------------------------------------ balance, top, stats
    "balance.line": {"ru": "💰 {name}: <b>{amount}</b>", "en": "💰 {name}: <b>{amount}</b>"},
    "top.header": {
        "ru": "🏆 <b>Лучшие игроки</b> {period}",
        "en": "🏆 <b>Leaderboard</b> {period}",
    },
    "top.period.all": {"ru": "за всё время", "en": "of all time"},
    "top.period.day": {"ru": "за сегодня", "en": "today"},
    "top.period.week": {"ru": "за неделю", "en": "this week"},
    "top.period.month": {"ru": "за месяц", "en": "this month"},
    "top.row": {
        "ru": "{place} {name} — <b>{balance}</b> ({net}, раундов: {rounds})",
        "en": "{place} {name} — <b>{balance}</b> ({net}, rounds: {rounds})",
    },
    "top.row_period": {
        "ru": "{place} {name} — <b>{net}</b> (раундов: {rounds}, побед: {wins})",
        "en": "{place} {name} — <b>{net}</b> (rounds: {rounds}, wins: {wins})",
    },
    "top.empty": {"ru": "Пока никто не играл.", "en": "Nobody has played yet."},
    "stats.header": {"ru": "📊 <b>{name}</b>", "en": "📊 <b>{name}</b>"},
    "stats.none": {
        "ru": "📊 {name}: ещё ни одного раунда.",
        "en": "📊 {name}: no rounds played yet.",
    },
    "stats.rounds": {
        "ru": "Раундов: {rounds} · побед: {wins} · поражений: {losses} · при своих: {pushes}",
        "en": "Rounds: {rounds} · wins: {wins} · losses: {losses} · pushes: {pushes}",
    },
    "stats.special": {
        "ru": "Очко: {twentyones} · золотое очко: {golden} · переборов: {busts}",
        "en": "21s: {twentyones} · golden points: {golden} · busts: {busts}",
    },
    "stats.money": {
        "ru": "Крупнейший выигрыш: {biggest} · итог: {net}",
        "en": "Biggest win: {biggest} · net: {net}",
    },
    "stats.win_rate": {"ru": "Доля побед: {percent}%", "en": "Win rate: {percent}%"},
    "chart.title": {"ru": "{name}: баланс", "en": "{name}: balance"},
    "chart.axis_balance": {"ru": "Фишки", "en": "Chips"},
    "chart.axis_time": {"ru": "Время (UTC)", "en": "Time (UTC)"},
    "chart.caption": {
        "ru": "📈 {name}: сейчас <b>{amount}</b> (в начале {start}, итог {net})",
        "en": "📈 {name}: now <b>{amount}</b> (started with {start}, net {net})",
    },
    "chart.none": {
        "ru": "📈 {name}: в этом чате ещё нет истории баланса — сыграйте раунд.",
        "en": "📈 {name}: no balance history in this chat yet — play a round.",
    },
    "chart.failed": {
        "ru": "Не получилось нарисовать график. Попробуйте позже.",
        "en": "Could not draw the chart. Please try again later.",
    },
    # ------------------------------------------------------------------ settings
    "settings.header": {"ru": "⚙ <b>Настройки чата</b>", "en": "⚙ <b>Chat settings</b>"},
    "settings.preset": {"ru": "Правила: <b>{preset}</b>", "en": "Rules: <b>{preset}</b>"},
    "settings.dark": {"ru": "Втёмную: {value}", "en": "Dark cards: {value}"},
    "settings.fine": {"ru": "Штраф за перебор: {value}%", "en": "Bust fine: {value}%"},
    "settings.acelow": {
        "ru": "Туз за 1 при переборе: {value}",
        "en": "Ace as 1 on a bust: {value}",
    },
    "settings.timeout": {"ru": "Время на ход: {value} с", "en": "Turn time: {value} s"},
    "settings.timeout_default": {"ru": "Время на ход: по умолчанию", "en": "Turn time: default"},
    "settings.lang": {"ru": "Язык: русский", "en": "Language: English"},
    "settings.overrides": {"ru": "Изменено: {items}", "en": "Changed: {items}"},
    "settings.hint": {
        "ru": "Новые настройки действуют со следующей игры.",
        "en": "New settings apply from the next game.",
    },
    "settings.btn.dark": {"ru": "Втёмную {value}", "en": "Dark {value}"},
    "settings.btn.fine": {"ru": "Штраф {value}%", "en": "Fine {value}%"},
    "settings.btn.acelow": {"ru": "Туз=1 {value}", "en": "Ace=1 {value}"},
    "settings.btn.timeout": {"ru": "⏱ {value} с", "en": "⏱ {value} s"},
    "settings.house": {"ru": "Банкир-бот (🏦 Дом): {value}", "en": "House banker (🏦): {value}"},
    "settings.btn.house": {"ru": "🏦 Дом {value}", "en": "🏦 House {value}"},
    "settings.saved": {"ru": "Сохранено ✅", "en": "Saved ✅"},
    "settings.closed": {"ru": "Настройки закрыты.", "en": "Settings closed."},
    "settings.admins_only": {
        "ru": "Настройки меняют только админы группы.",
        "en": "Only group admins change the settings.",
    },
    "settings.invalid": {
        "ru": "Так нельзя: {reason}",
        "en": "Not possible: {reason}",
    },
    # ------------------------------------------------------------------ delivery
    "turn.mention": {
        "ru": "👉 {mention}, ваш ход — кнопки на столе выше.",
        "en": "👉 {mention}, your move — the buttons are on the table above.",
    },
    "pressed.done": {"ru": "✅ Уже принято.", "en": "✅ Already done."},
    "turn.warning": {
        "ru": "⏳ Ваш ход: осталось {seconds} с.",
        "en": "⏳ Your move: {seconds} s left.",
    },
    "reply.pointer": {
        "ru": "📬 {name}: ответ — в личных сообщениях с ботом.",
        "en": "📬 {name}: the answer is in your private chat with me.",
    },
    "cooldown": {
        "ru": "⏳ Не так часто: повторите через {seconds} с.",
        "en": "⏳ Not so often: try again in {seconds} s.",
    },
    # ------------------------------------------------------------------ misc messages
    "game.cancelled": {"ru": "✖ Игра отменена.", "en": "✖ The game was cancelled."},
    "game.cancelled_by": {"ru": "✖ {name} отменил игру.", "en": "✖ {name} cancelled the game."},
    "game.ended_by": {"ru": "🏁 {name} завершил игру.", "en": "🏁 {name} ended the game."},
    "lobby.expired": {
        "ru": "⌛ Стол закрыт: никто не начал игру вовремя.",
        "en": "⌛ The table closed: nobody started the game in time.",
    },
    "game.expired": {
        "ru": "⌛ Игра закрыта: слишком долго никто не ходил.",
        "en": "⌛ The game closed: nobody moved for too long.",
    },
    "timeout.stand": {
        "ru": "⏱ {name} не успел — засчитано «хватит».",
        "en": "⏱ {name} ran out of time — stands.",
    },
    "timeout.sit_out": {
        "ru": "⏱ {name} не успел поставить — пропускает раунд.",
        "en": "⏱ {name} did not stake in time — sits this round out.",
    },
    "timeout.bank": {
        "ru": "⏱ {name} не назначил банк — банк переходит дальше.",
        "en": "⏱ {name} did not name the bank — it passes on.",
    },
    "private.opened": {
        "ru": "✉ Личный чат открыт — ваши карты будут приходить сюда.",
        "en": "✉ Private chat opened — your cards will come here.",
    },
    "private.confirmed": {
        "ru": "✉ {name} открыл личку — карты придут туда.",
        "en": "✉ {name} opened the private chat — cards will go there.",
    },
    "private.hint": {
        "ru": "{name}, откройте личку с ботом, чтобы видеть свои карты: {link}",
        "en": "{name}, open a private chat with the bot to see your cards: {link}",
    },
    "private.start": {
        "ru": "Привет! Я раздаю Очко в группах. Добавьте меня в группу и наберите /newgame.",
        "en": "Hi! I deal Ochko in groups. Add me to a group and type /newgame.",
    },
    "private.hand_sent": {"ru": "✉ Карты отправлены в личку.", "en": "✉ Cards sent privately."},
    "private.no_hand": {
        "ru": "У вас сейчас нет карт ни в одной игре.",
        "en": "You hold no cards in any game now.",
    },
    "private.blocked": {
        "ru": "{name}, не получается написать вам в личку — откройте чат с ботом: {link}",
        "en": "{name}, I cannot message you privately — open a chat with the bot: {link}",
    },
    "lang.switched": {"ru": "Язык: русский 🇷🇺", "en": "Language: English 🇬🇧"},
    "lang.usage": {"ru": "Язык: /lang ru или /lang en", "en": "Language: /lang ru or /lang en"},
    "group_only": {
        "ru": "Эта команда работает в группе.",
        "en": "This command works in a group.",
    },
    "private_several": {
        "ru": "Вы сидите в нескольких играх — ходите кнопками под картами или командой в группе.",
        "en": "You sit in several games — use the buttons under your cards or type in the group.",
    },
    "usage.bet": {
        "ru": "Ставка: /bet сумма, от {minimum} до {maximum}",
        "en": "Stake: /bet amount, {minimum} to {maximum}",
    },
    "usage.bank": {
        "ru": "Банк: /bank сумма, от 1 до {maximum}",
        "en": "Bank: /bank amount, 1 to {maximum}",
    },
    "usage.newgame": {
        "ru": "Новая игра: /newgame [{presets}]",
        "en": "New game: /newgame [{presets}]",
    },
    "error.internal": {
        "ru": "Что-то пошло не так. Попробуйте ещё раз.",
        "en": "Something went wrong. Please try again.",
    },
    # ------------------------------------------------------------------ handler messages
    "joined": {"ru": "Вы за столом ✅", "en": "You are seated ✅"},
    "hand_in_group": {
        "ru": "Наберите /hand в группе, где идёт игра, — карты придут сюда.",
        "en": "Type /hand in the group where you play — the cards will come here.",
    },
    "unknown_preset": {
        "ru": "Нет правил {name}. Есть: {known}",
        "en": "No preset {name}. Known: {known}",
    },
}

# Flat names used by the handlers, the same texts as the dotted keys.
ALIASES: dict[str, str] = {
    "error": "error.internal",
    "lang_set": "lang.switched",
    "lang_usage": "lang.usage",
    "open_private_button": "btn.open_private",
    "private_opened": "private.opened",
    "settings_saved": "settings.saved",
    **{f"cmd_{key[4:]}": key for key in STRINGS if key.startswith("cmd.")},
}
for _alias, _target in ALIASES.items():
    STRINGS.setdefault(_alias, STRINGS[_target])


class _Missing(dict[str, object]):
    """Fills a placeholder nobody passed instead of raising (by default leaves it visible)."""

    def __init__(self, params: Mapping[str, object], missing: str | None) -> None:
        super().__init__(params)
        self._fill = missing

    def __missing__(self, key: str) -> str:
        return "{" + key + "}" if self._fill is None else self._fill


def has(key: str) -> bool:
    return key in STRINGS


def t(key: str, lang: str, **params: object) -> str:
    """The text of ``key`` in ``lang`` (Russian when that language is missing), formatted with
    ``params``; an unknown key comes back as itself."""
    return t_map(key, lang, params)


def t_map(key: str, lang: str, params: Mapping[str, object], *, missing: str | None = None) -> str:
    """:func:`t` with the parameters as a mapping; ``missing`` fills absent placeholders."""
    texts: Mapping[str, str] | None = STRINGS.get(key)
    if texts is None:
        return key
    template = texts.get(lang) or texts[DEFAULT_LANGUAGE]
    return template.format_map(_Missing(params, missing))
