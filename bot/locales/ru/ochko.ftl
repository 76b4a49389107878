player-unknown = Игрок { $id }
more = … и ещё { $count }
on = вкл
off = выкл
preset-classic36-name = Классика, 36 карт
preset-home36-name = По-домашнему, 36 карт
preset-big54-name = Большая колода, 54 карты
preset-twodecks104-name = Две колоды, 104 карты
preset-classic36-summary =
    Валет 2, дама 3, король 4, туз 11. Банкир сам назначает банк.
    Каждый по очереди ставит (хоть ва-банк) и тут же берёт карты; очко и золотое очко (два туза) выигрывают сразу.
    Нижняя карта колоды открыта; можно брать втёмную.
preset-home36-summary =
    Валет 2, дама 3, король 4, туз 11. Банкир ставит в банк всё, что у него есть.
    Сначала все ставят (вместе не больше банка), потом берут карты; очко платится сразу.
    Перебор стоит ставки и штрафа; можно брать втёмную.
preset-big54-summary =
    Как по-домашнему, но колода 54 карты: двойки–тузы и два джокера.
    Джокер — любая карта от 1 до 11, как выгоднее.
    Перебор стоит ставки и штрафа; можно брать втёмную.
preset-twodecks104-summary =
    Две колоды по 52, картинки по 10, туз 1 или 11. Все ставят, потом каждому по две карты.
    Очко с раздачи у банкира забирает все ставки, у игрока — платится вдвое.
    Банкир добирает первым; банк переходит каждый раунд.
lobby-header = 🃏 <b>Очко</b> — собираем стол
lobby-preset = Вариант: <b>{ $preset }</b>
lobby-players = Игроки ({ $count } из { $maximum }):
lobby-empty = Пока никого — жмите «{ btn-join }».
lobby-creator = создатель стола
lobby-private_hint = ✉ — карты приходят в личку. Остальным: напишите боту в личку, а пока смотрите карты кнопкой «{ btn-peek }».
lobby-need_more = { $count ->
        [one] Для начала нужен ещё { $count } игрок.
        [few] Для начала нужно ещё { $count } игрока.
       *[many] Для начала нужно ещё { $count } игроков.
    }
lobby-ready = Можно начинать: «{ btn-start }» или /deal.
lobby-full = Мест больше нет.
btn-join = 🪑 Сесть за стол
btn-leave = 🚪 Выйти
btn-start = ▶ Начать
btn-cancel = ✖ Отменить
btn-open_private = ✉ Карты в личку
btn-bank_amount = 🏦 { $amount }
btn-bank_all = 🏦 Всё: { $amount }
btn-decline_bank = 🙅 Не банкую
btn-stake = { $amount }
btn-va_bank = Ва-банк { $amount }
btn-stake_max = Макс. { $amount }
btn-hit = 🃏 Ещё карту
btn-stand = ✋ Хватит
btn-dark = 🌑 Втёмную
btn-peek = 👁 Мои карты
btn-next = ▶ Следующий раунд
btn-pass_bank = 🔁 Передать банк
btn-close = ✖ Закрыть
btn-odds = 💡 Шансы
odds-alert = Перебор: { $bust } · Очко: { $twenty_one }
odds-part = { $count } из { $total } ({ $percent }%)
odds-part_percent = { $percent }%
odds-no_cards = В колоде не осталось карт.
odds-not_drawing = Шансы видит только тот, кто сейчас берёт карты.
odds-press_button = Нажмите 💡 под столом: шансы увидите только вы.
table-header = 🃏 <b>Раунд { $round }</b> · { $preset }
table-header_first = 🃏 <b>Очко</b> · { $preset }
table-no_banker = 🏦 Банкира нет
table-bottom = 🔻 Нижняя карта: { $card }
table-banker_row = 🏦 { $name } — { $details }
table-bank = банк <b>{ $bank }</b>
table-player_row = { $place }. { $name } — { $details }
table-stake = ставка { $amount }
table-balance = 💰 { $amount }
table-no_cards = без карт
table-total = = { $total }
table-waiting_next = 🪑 Ждут следующего раунда: { $names }
table-time_left = ⏱ { $seconds } с
status-waiting = ждёт
status-staked = ждёт хода
status-on_turn = ⏳ ходит
status-stood = ✋ хватит
status-bust = 💥 перебор
status-twenty_one = ✅ очко
status-golden = 🏆 золотое очко
status-natural = ✅ очко с раздачи
status-won = ✅ выигрыш
status-lost = ❌ проигрыш
status-out = 💤 пропускает
status-leaving = 🚪 уходит
prompt-bank = 👉 { $name }: банк от 1 до { $maximum }
prompt-stake = 👉 { $name }: ставка до { $maximum }
prompt-draw = 👉 { $name }: ещё или хватит?
prompt-banker = 👉 🏦 { $name }: ещё или хватит?
prompt-round_over = 🏁 Раунд окончен — итоги ниже.
prompt-ended = 🏁 Игра окончена.
result-header = 🏁 <b>Раунд { $round }: вскрываемся</b>
result-banker = 🏦 Банкир { $name }: { $cards } — <b>{ $total }</b>
result-row = { $name }: { $cards } — { $total } · { $payment }
result-out_row = { $name }: 💤 раунд пропущен
result-bust = перебор 💥
result-twenty_one = очко ✅
result-golden = (золотое очко 🏆)
result-natural = с раздачи
result-dark = с картой втёмную
pay-win = <b>+{ $amount }</b>
pay-lose = −{ $amount }
pay-lose_fine = −{ $amount } (из них штраф { $fine })
pay-push = при своих
result-banker_net = Банкир за раунд: { $amount }
result-bank = 🏦 Банк: <b>{ $bank }</b>
result-balances = 💰 Фишки:
result-balance_row = { $name } — { $amount }
table-commitment = 🔒 Хеш колоды: { $prefix }…
result-verify_hint = 🔓 Колода раскрыта — проверить: /verify { $round }
verify-header = 🔐 <b>Проверка колоды — раунд { $round }</b>
verify-shuffle = Колода { $n }
verify-recycled = Колода { $n } (перетасован сброс)
verify-commitment = Хеш: <code>{ $value }</code>
verify-salt = Соль: <code>{ $value }</code>
verify-order = Порядок: { $value }
verify-dealt = { $count ->
        [one] Роздана { $count } карта
        [few] Роздано { $count } карты
       *[many] Роздано { $count } карт
    }: { $value }
verify-hash_ok = хеш совпадает ✅
verify-hash_bad = хеш НЕ совпадает ❌
verify-deal_ok = карты шли по порядку ✅
verify-deal_bad = карты шли НЕ по порядку ❌
verify-ok = Итог: ✅ колода честная
verify-bad = Итог: ❌ проверка не прошла
verify-how = Как проверить без бота: хеш SHA-256 строки «ochko-v1|соль|порядок» должен совпасть с хешем, показанным до раздачи; порядок — коды карт латиницей через пробел: 10♥ → 10H, A♠ → AS, Q♦ → QD, 7♣ → 7C, ★ → X1 или X2.
refusal-not_revealed = 🔒 Колоду раунда { $round } можно проверить после вскрытия карт.
refusal-no_round = Раунда { $round } в этой игре не было. { $played ->
        [0] Ещё не сыграно ни одного раунда.
        [one] Пока сыгран { $played } раунд.
        [few] Пока сыграно { $played } раунда.
       *[many] Пока сыграно { $played } раундов.
    }
refusal-none_yet = 🔒 Проверять пока нечего: колоду можно проверить после вскрытия карт.
verify-legacy = Раунд { $round } сдан ещё до того, как бот начал показывать хеш колоды.
verify-no_game = Нет игры, колоду которой можно проверить.
cmd-verify = проверить колоду раунда [номер]
end-header = 🏁 <b>Игра окончена</b>
end-reason-ended = Игру завершили.
end-reason-all_dealt = Все побывали банкирами.
end-reason-no_players = Не осталось игроков с фишками.
end-reason-no_banker = Некому держать банк.
end-reason-other = Игра завершена.
end-balances = 💰 Фишки по итогам игры:
end-new_game = Новая игра — /newgame
hand-header = 🃏 <b>Очко</b> · { $chat } · раунд { $round }
hand-header_first = 🃏 <b>Очко</b> · { $chat }
hand-chat_fallback = игра №{ $game }
hand-cards = Ваши карты: { $cards }
hand-no_cards = Карт пока нет.
hand-dark_card = 🂠 (втёмную)
hand-total = Сумма: <b>{ $total }</b>
hand-total_dark = Сумма открытых: <b>{ $total }</b> + карта втёмную
hand-stake = Ставка: <b>{ $stake }</b> · фишки: { $balance }
hand-balance = Фишки: { $balance }
hand-banker_self = 🏦 Вы банкир · фишки: { $balance }
hand-banker_card = 🏦 Банкир { $name }: { $cards }
hand-bottom = Нижняя карта: { $card }
hand-status = Статус: { $status }
hand-turn_bank = ⏳ Ваш ход: назначьте банк от 1 до { $maximum }
hand-turn_stake = ⏳ Ваш ход: ставка от { $minimum } до { $maximum }
hand-turn_draw = ⏳ Ваш ход: ещё или хватит?
hand-waiting_for = Сейчас ходит: { $name }
hand-not_seated = Вы не за этим столом.
peek-cards = Ваши карты: { $cards } — { $total }
peek-cards_dark = Ваши карты: { $cards } — { $total } + карта втёмную
peek-no_cards = Карт у вас пока нет
peek-not_playing = Вы не в игре
news-twenty_one = ✅ { $name }: очко! +{ $paid }
news-golden = 🏆 { $name }: золотое очко! +{ $paid }
news-bust = 💥 { $name }: перебор, { $total }
news-bank_broken = 💥 Банк сорван! { $name } больше не банкует.
news-bank_passed = 🔁 Банк переходит: { $name }
news-bank_declined = 🙅 { $old } не банкует — банк переходит: { $name }
news-bank_nobody = 🔁 Банк передать некому
news-banker_lot = 🎲 По жребию банкует { $name }
news-bank_set = 🏦 { $name } назначает банк: { $amount }
news-joined = 🪑 { $name } садится за стол
news-left = 🚪 { $name } выходит из-за стола
news-leave_scheduled = 🚪 { $name } выйдет после раунда
news-timeout_stand = ⏱ { $name }: время вышло — больше не берёт
news-timeout_out = ⏱ { $name }: время вышло — пропускает раунд
news-sat_out = { $name } пропускает раунд: не хватает фишек
news-bank_empty = { $name } пропускает раунд: банк пуст
news-naturals_banker = 🃏 Банкир { $name }: очко с раздачи — забирает все ставки
news-naturals_players = 🃏 Очко с раздачи: { $names } — выплата вдвое
news-reshuffled = 🔄 Колода кончилась — сброс перетасован
news-banker_turn = 🏦 Банкир { $name } берёт карты
news-dark = 🌑 { $name } берёт карту втёмную
news-session_ended = 🏁 Игра окончена
refusal-not_your_turn = Сейчас не ваш ход.
refusal-wrong_phase = Сейчас не время для этого — посмотрите стол: /table.
refusal-amount_out_of_range = Сумма — от { $minimum } до { $maximum }.
refusal-amount_none = Сейчас ставить нельзя: банк уже весь разобран ставками или у вас нет фишек.
refusal-cannot_afford = Не хватает фишек: у вас { $balance }, ставка — не больше { $maximum }.
refusal-cannot_afford_fine = Фишек должно хватить и на штраф: у вас { $balance }, ставка — не больше { $maximum }.
refusal-too_many_cards = { $maximum ->
        [one] Больше { $maximum } карты в руке не бывает.
        [few] Больше { $maximum } карт в руке не бывает.
       *[many] Больше { $maximum } карт в руке не бывает.
    }
refusal-deck_exhausted = Карты в колоде кончились.
refusal-option_disabled = В этом варианте так не играют — правила: /rules.
refusal-cannot_pass_bank = Сейчас банк передать нельзя — когда можно, сказано в /rules.
refusal-cannot_pass_bank_rounds = Банк можно передать, только продержав его { $rounds ->
        [one] { $rounds } раунд
        [few] { $rounds } раунда
       *[many] { $rounds } раундов
    }. { $played ->
        [one] Пока сыгран { $played } из { $rounds }.
        [few] Пока сыграно { $played } из { $rounds }.
       *[many] Пока сыграно { $played } из { $rounds }.
    }
refusal-game_over = Игра уже окончена. Новая — /newgame
refusal-not_seated = Вы не за столом — жмите «{ btn-join }» или /join.
refusal-already_seated = Вы уже за столом.
refusal-table_full = Стол полон: { $seats ->
        [1] единственное место занято.
        [one] все { $seats } место заняты.
        [few] все { $seats } места заняты.
       *[many] все { $seats } мест заняты.
    }
refusal-not_enough_players = { $minimum ->
        [one] Нужен хотя бы { $minimum } игрок с фишками.
        [few] Нужно хотя бы { $minimum } игрока с фишками.
       *[many] Нужно хотя бы { $minimum } игроков с фишками.
    }
refusal-not_enough_players_more = Для начала { $missing ->
        [one] нужен ещё { $missing } игрок
        [few] нужно ещё { $missing } игрока
       *[many] нужно ещё { $missing } игроков
    } с фишками — позовите кого-нибудь за стол («{ btn-join }» или /join).
refusal-invalid_variant = Эти настройки друг с другом не сочетаются.
refusal-illegal_action = Сейчас так нельзя — что можно, видно по кнопкам на столе (/table).
refusal-stale_button = Кнопка устарела — жмите кнопки под свежим столом (/table).
refusal-foreign_game = Эта кнопка от другой игры — свежий стол: /table.
refusal-no_game = В этом чате нет игры. Начните: /newgame
refusal-not_allowed = Это может только создатель стола, банкир или админ.
refusal-private_needed = Сначала напишите боту в личку — туда придут ваши карты.
refusal-bad_amount = Нужно целое число от { $minimum } до { $maximum }.
refusal-bad_amount_plain = Нужно целое положительное число.
refusal-game_exists = В этом чате уже идёт игра: /table
refusal-user_game_limit = { $limit ->
        [one] Вы уже играете за { $limit } столом — больше нельзя.
        [few] Вы уже играете за { $limit } столами — больше нельзя.
       *[many] Вы уже играете за { $limit } столами — больше нельзя.
    }
refusal-house_busy = Банкир-бот уже держит банк за другим столом этого чата — доиграйте там или выключите банкира-бота в /settings.
refusal-seated_in_chat = Вы уже сидите за другим столом в этом чате — сначала доиграйте там.
refusal-slow_down = Не так быстро 🙂
refusal-generic = Так нельзя — посмотрите кнопки на столе (/table) или правила (/rules).
help-header_group = 🃏 <b>Очко</b> — карточная игра «21» для всей группы.
help-header_private = 🃏 <b>Очко</b> — карточная игра «21» для групп: добавьте бота в группу и играйте там.
help-footer = Ходить можно кнопками или командами. Ваши карты видите только вы.
cmd-newgame = открыть стол [вариант]
cmd-join = сесть за стол
cmd-leave = выйти из-за стола
cmd-deal = начать игру, когда все сели
cmd-bank = назначить банк: /bank 100
cmd-bet = поставить: /bet 50
cmd-hit = взять ещё карту
cmd-stand = хватит: больше карт не брать
cmd-dark = взять карту втёмную
cmd-passbank = передать банк или отказаться от него
cmd-table = показать стол заново
cmd-hand = прислать мои карты в личку
cmd-hand-private = прислать мои карты ещё раз
cmd-endgame = завершить игру (создатель, банкир, админ)
cmd-odds = шансы перебора и очка на следующей карте (в личку)
cmd-odds-private = шансы перебора и очка на следующей карте
cmd-balance = сколько у меня фишек
cmd-top = лучшие игроки сезона (/top всё — за всё время)
cmd-stats = моя статистика и достижения
cmd-chart = график моих фишек (ответом на сообщение — чужих)
cmd-rules = правила игры [вариант]
cmd-settings = настройки чата (админы)
cmd-lang = язык: /lang ru или /lang en
cmd-help = эта справка
cmd-start = начать: сюда будут приходить ваши карты
# /rules (bot/render/info.py: rules_parts), in the order shown: four parts of one phone screen each.
rules-header = 📜 <b>{ $preset }</b> ({ $name })
rules-unknown = Нет такого варианта. Есть: { $presets }
rules-running = 🎲 Правила текущей игры.
rules-chat_overrides = ⚙ С настройками этого чата.
rules-part-play = 🎯 <b>Как играть</b>
rules-goal = Вы играете против банкира: наберите больше очков, чем у него, но не больше 21 — иначе перебор.
rules-compare = Больше банкира — выигрыш, меньше — проигрыш, поровну — при своих.
rules-banker_last = Банкир ходит последним; перебрал — выиграли все, кто не перебрал.
rules-banker_first = Банкир добирает первым, втайне.
rules-no_fine = 💥 Перебор — ставка уходит в банк.
rules-fine = 💥 Перебор — в банк уходят ставка и { $percent ->
        [100] штраф в размере ставки.
       *[other] штраф { $percent }% от ставки.
    }
rules-both_bust = Перебрал банкир — кто не перебрал, получает вдвое (50 → +100), кто тоже перебрал — при своих.
rules-hidden = 🂠 Чужие карты до вскрытия закрыты, свои видите только вы.
rules-draw = Ваш ход: «{ btn-hit }» или «{ btn-stand }». В руке не больше { $count ->
        [one] { $count } карты.
        [few] { $count } карт.
       *[many] { $count } карт.
    }
rules-instant_21 = ✅ Очко (21) — выигрыш сразу.
rules-golden = 🏆 Золотое очко (два туза) — тоже.
rules-naturals = ✅ Очко с раздачи — 21 на двух первых картах. Если оно у банкира, он сразу забирает все ставки, даже у тех, у кого тоже очко. Если у игрока — банк сразу платит ему вдвое: ставка 50 → +100.
rules-part-stakes = 💰 <b>Банк и ставки</b>
rules-bank_pays = 🏦 Банк — фишки, которые банкир выставил против игроков. Выиграли — банк платит столько же, сколько вы поставили: ставка 50 → +50. Проиграли — ставка уходит в банк.
rules-bank-named = Сколько фишек положить в банк, решает банкир — хоть все свои.
rules-bank-all_in = Банкир кладёт в банк все свои фишки.
rules-bank_limit = В банке не больше { $limit }.
rules-stakes-per_turn = Игроки по очереди ставят и сразу берут карты.
rules-stakes-before_draw = Сначала ставят все, потом по очереди берут карты.
rules-stakes-before_deal = Все ставят до раздачи.
rules-cap-bank = Ставка — не больше банка; на весь банк — ва-банк.
rules-cap-shared = Все ставки вместе — не больше банка, с запасом по 1 фишке на каждого, кто ещё не ставил.
rules-fine_cap = Фишек должно хватать и на штраф: при { $balance } фишках ставка — не больше { $stake }.
rules-cover = ⚠ Банк платит выигравшим по очереди, пока в нём есть фишки. ⚠ на ставке: если выиграют и другие, вам могут выплатить не всё.
rules-part-cards = 🃏 <b>Колода и раздача</b>
rules-seats = За столом от { $minimum } до { $maximum ->
        [one] { $maximum } игрока
        [few] { $maximum } игроков
       *[many] { $maximum } игроков
    }, считая банкира.
rules-deck-36 = Колода: 36 карт (шестёрки–тузы).
rules-deck-54 = Колода: 52 карты и два джокера.
rules-deck-104 = Колода: две по 52 карты.
rules-values-russian = Очки: валет 2, дама 3, король 4, туз 11, остальные по номиналу.
rules-values-western = Очки: картинки по 10, туз 1 или 11 — как выгоднее, остальные по номиналу.
rules-ace_low = При переборе туз считается за 1.
rules-jokers = Джокер (★) — любое значение от 1 до 11, как выгоднее.
rules-deal = Раздача: каждому по { $count ->
        [one] { $count } карте
        [few] { $count } карты
       *[many] { $count } карт
    }.
rules-banker_up = Первую карту банкира видят все.
rules-bottom = 🔻 Нижняя карта открыта всем и сдаётся последней — скорее всего, её никто не получит.
rules-dark = 🌑 Карта втёмную: до вскрытия её не видит никто, даже вы; после неё карт больше не берут.
rules-dark_fine = Перебор втёмную — без штрафа.
rules-no_dark = Втёмную в этом варианте не играют.
rules-part-bank = 🔁 <b>Смена банкира и конец игры</b>
rules-lot = 🎲 Первого банкира выбирает жребий.
rules-order-clockwise = Игроки ходят по номерам на столе; банк потом переходит к игроку № 1.
rules-order-counterclockwise = Игроки ходят по номерам на столе; банк потом переходит к игроку с последним номером.
rules-pass-when_broken = Банк переходит, когда его сорвут — в нём кончатся фишки.
rules-pass-every_round = Банк переходит после каждого раунда.
rules-pass-voluntary = Продержав банк { $rounds ->
        [one] { $rounds } раунд
        [few] { $rounds } раунда
       *[many] { $rounds } раундов
    }, банкир может передать его сам: «{ btn-pass_bank }» или /passbank.
rules-end_chips = 🏁 Игра идёт, пока её не завершат (/endgame) или пока фишки не окажутся у кого-то одного.
rules-end_all_dealt = 🏁 Игра кончается, когда все побывали банкирами.
rules-others = Другие варианты: { $presets }
balance-line = 💰 { $name }: <b>{ $amount }</b>
top-header = 🏆 <b>Лучшие игроки</b> { $period }
# The word after /top that asks for this month's table (typed, lower case).
top-arg_month = месяц
top-period-all = за всё время
top-period-day = за сегодня
top-period-week = за неделю
top-period-month = за месяц
top-row = { $place } { $name } — <b>{ $balance }</b> ({ $net }, { $rounds ->
        [one] { $rounds } раунд
        [few] { $rounds } раунда
       *[many] { $rounds } раундов
    })
top-row_period = { $place } { $name } — <b>{ $net }</b> ({ $rounds ->
        [one] { $rounds } раунд
        [few] { $rounds } раунда
       *[many] { $rounds } раундов
    }, { $wins ->
        [one] { $wins } победа
        [few] { $wins } победы
       *[many] { $wins } побед
    })
top-empty = Пока никто не играл.
stats-header = 📊 <b>{ $name }</b>
stats-none = 📊 { $name }: ещё ни одного раунда.
stats-rounds = { $rounds ->
        [one] { $rounds } раунд
        [few] { $rounds } раунда
       *[many] { $rounds } раундов
    }: { $wins ->
        [one] { $wins } победа
        [few] { $wins } победы
       *[many] { $wins } побед
    }, { $losses ->
        [one] { $losses } поражение
        [few] { $losses } поражения
       *[many] { $losses } поражений
    }, { $pushes ->
        [one] { $pushes } раз при своих
        [few] { $pushes } раза при своих
       *[many] { $pushes } раз при своих
    }
stats-twentyones = очко — { $count ->
        [one] { $count } раз
        [few] { $count } раза
       *[many] { $count } раз
    }
stats-golden = золотое очко — { $count ->
        [one] { $count } раз
        [few] { $count } раза
       *[many] { $count } раз
    }
stats-busts = перебор — { $count ->
        [one] { $count } раз
        [few] { $count } раза
       *[many] { $count } раз
    }
stats-money = Крупнейший выигрыш: { $biggest } · итог: { $net }
stats-win_rate = Доля побед: { $percent }%
chart-title = { $name }: фишки
chart-axis_balance = Фишки
chart-caption = 📈 { $name }: сейчас <b>{ $amount }</b> (в начале { $start }, итог { $net })
chart-none = 📈 { $name }: в этом чате ещё нет истории фишек — сыграйте раунд.
chart-failed = Не получилось нарисовать график. Попробуйте позже.
settings-header = ⚙ <b>Настройки чата</b>
settings-preset = Вариант: <b>{ $preset }</b>
settings-dark = Втёмную: { $value }
settings-fine = Штраф за перебор: { $value }%
settings-acelow = Туз за 1 при переборе: { $value }
settings-timeout = Время на ход: { $value } с
settings-timeout_default = Время на ход: по умолчанию
settings-lang = Язык: русский
settings-overrides = Изменено: { $items }
settings-hint = Новые настройки действуют со следующей игры.
settings-btn-dark = Втёмную { $value }
settings-btn-fine = Штраф { $value }%
settings-btn-acelow = Туз=1 { $value }
settings-btn-timeout = ⏱ { $value } с
settings-house = 🏦 Банкир-бот: { $value }
settings-btn-house = 🏦 Банкир-бот { $value }
settings-btn-lang = 🇷🇺 Русский
settings-saved = Сохранено ✅
settings-invalid = Так нельзя: { $reason }
house-name = Банкир-бот
turn-mention = 👉 { $mention }, ваш ход — кнопки на столе выше.
pressed-done = ✅ Уже принято.
turn-warning = ⏳ Ваш ход: осталось { $seconds } с.
reply-pointer = 📬 { $name }: ответ — в личке с ботом.
cooldown = ⏳ Не так часто: повторите через { $seconds } с.
game-cancelled = ✖ Игра отменена.
game-cancelled_by = ✖ { $name } отменяет игру.
game-ended_by = 🏁 { $name } завершает игру.
lobby-expired = ⌛ Стол закрыт: никто не начал игру вовремя.
game-expired = ⌛ Игра закрыта: слишком долго никто не ходил.
private-opened = ✉ Личка с ботом открыта — ваши карты будут приходить сюда.
lang-switched = Язык: русский 🇷🇺
lang-usage = Язык: /lang ru или /lang en
group_only = Эта команда работает только в группе.
private_several = Вы играете сразу за несколькими столами — ходите кнопками под картами или командой в группе.
error-internal = Что-то пошло не так. Попробуйте ещё раз.
joined = Вы за столом ✅
hand_in_group = Наберите /hand в группе, где идёт игра, — карты придут сюда.
unknown_preset = Нет варианта { $name }. Есть: { $known }

## Friday details: /endgame confirmation, the game's end, /rules of the running game, /chart axes
endgame-confirm =
    🏁 { $name }, точно завершить игру?
    Ставки текущего раунда вернутся, итоги придут одним сообщением.
    Подтвердить можете только вы — { $seconds } с.
btn-endgame_yes = 🏁 Да, завершить
btn-endgame_no = ↩ Играем дальше
endgame-not_yours = Подтвердить может только { $name }.
endgame-expired = ⌛ Завершение не подтверждено — игра продолжается.
endgame-kept = ↩ { $name }: игра продолжается.
endgame-over = Эта игра уже окончена.
end-header_by = 🏁 { $name } завершает игру
prompt-ended_below = 🏁 Игра окончена — итоги ниже.
chart-axis_hours = Время (UTC) · { $days }
chart-axis_dates = Дата (UTC) · { $years }

## A way back for broke players: the seat refusal, the daily refill, its setting
refusal-cannot_cover_stake = Чтобы сесть, { $minimum ->
        [one] нужна хотя бы { $minimum } фишка
        [few] нужно хотя бы { $minimum } фишки
       *[many] нужно хотя бы { $minimum } фишек
    } — у вас { $balance }.
refusal-no_chips_wait = Не хватает фишек, чтобы сесть: есть { $balance }, нужно хотя бы { $minimum }. Фишки пополнятся до { $refill } через { $hours ->
        [0] { $minutes } мин
       *[other] { $hours } ч { $minutes } мин
    } — тогда жмите «{ btn-join }» или /join.
refusal-no_chips_refill_off = Не хватает фишек, чтобы сесть: есть { $balance }, нужно хотя бы { $minimum }. Пополнение фишек в этом чате выключено — админ может включить его в /settings.
refill-done = 💰 { $name }: +{ $amount } — фишки пополнены до { $balance }. Пополнение — раз в сутки, когда фишки кончились.
refill-toast = Вы за столом ✅ +{ $amount } { $amount ->
        [one] фишка
        [few] фишки
       *[many] фишек
    } — пополнение раз в сутки.
settings-refill = Пополнение фишек раз в сутки: { $value }
settings-btn-refill = 💰 Пополнение { $value }
refill-balance_ready = Фишек мало: чтобы сесть, нужно хотя бы { $minimum }. Садитесь — «{ btn-join }» или /join, — и бот сразу пополнит их до { $refill }.
refill-balance_wait = Фишек не хватает, чтобы сесть (нужно хотя бы { $minimum }). Пополнение до { $refill } — через { $hours ->
        [0] { $minutes } мин
       *[other] { $hours } ч { $minutes } мин
    }.
refill-balance_off = Фишек не хватает, чтобы сесть (нужно хотя бы { $minimum }). Пополнение фишек в этом чате выключено — админ может включить его в /settings.

## Commands, settings options and languages: the command table (bot/commands.py), private /balance
cmd-next = начать следующий раунд
cmd-cancel = закрыть стол до начала игры
settings-btn-preset = { $value }
private-no_game = Вы сейчас не сидите ни за одним столом. Играют в группах: откройте стол там командой /newgame.
private-unknown_command = Такой команды нет. Все команды: /help
private_only = Эта команда работает только в личке с ботом.
balance-private_header = 💰 <b>Ваши фишки</b> (в каждом чате свои):
balance-private_line = • { $chat }: <b>{ $amount }</b>
balance-private_line_untitled = • недоступный чат: <b>{ $amount }</b>
balance-private_none = 💰 Вы ещё не играли ни в одном чате. Добавьте бота в группу и откройте стол: /newgame

## A table that explains itself: partial payouts, the bank's cover, the banker's chips, pauses, precise refusals
btn-stake_uncovered = ⚠ { $label }
btn-resume = ▶ Продолжить
prompt-stake_cover = ⚠ банк точно выплатит до { $cover }
prompt-paused = ⏸ Пауза: с начала раунда никто не ходил. Сейчас ходит { $name }; продолжить — «{ btn-resume }» или любой ход.
prompt-paused_between = ⏸ Пауза: в этом раунде никто не ходил, поэтому новый не начнётся сам. Продолжить — «{ btn-next }» или /next.
prompt-next_round_in = ⏱ Следующий раунд начнётся через { $seconds } с; сразу — «{ btn-next }» или /next.
prompt-next_round = Следующий раунд начнётся сам; сразу — «{ btn-next }».
pay-win_short = <b>+{ $amount }</b> из { $due }: банк кончился
pay-push_dry = при своих: банк пуст, выигрыш { $due } платить нечем
news-paid_short = (из { $due }: банк кончился)
refusal-range_bank = Банк — целое число от { $minimum } до { $maximum }: /bank и сумма.
refusal-range_stake = Ставка — целое число от { $minimum } до { $maximum }: /bet и сумма.
refusal-not_your_turn_name = Сейчас не ваш ход: ходит { $turn_name }.
refusal-wrong_phase_at = { $phase ->
        [lobby] Игра ещё не началась: сначала «{ btn-start }» или /deal.
        [bank] Сейчас банкир назначает банк — подождите.
        [round_over] Раунд окончен. Дальше — «{ btn-next }» или /next.
       *[other] Раунд ещё идёт — это можно, когда он закончится.
    }
refusal-cannot_pass_bank_banker = Передать банк может только банкир — сейчас это { $banker_name }.
refusal-cannot_pass_bank_never = В этом варианте банкир не может передать банк по своему желанию.
refusal-admins_only = Это могут только админы группы.
refusal-not_paused = Игра и так идёт — ждём хода.
joined_next = Вы за столом ✅ Раунд уже идёт — играете со следующего.
joined-private = Карты придут в личку с @{ $bot } — откройте её.
end-reason-expired = Слишком долго никто не ходил.
end-reason-unreachable = Бот больше не может писать в этот чат.
end-declined = Отказались от банка: { $names }
end-broke = Без фишек: { $names }
end-dealt = Банк уже держали: { $names }
settings-invalid-dark_draw = в этом варианте банкир берёт карты первым, поэтому втёмную не играют
settings-invalid-ace_low = с очками «картинки по 10» туз и так считается за 1 или 11
held-bank_note = (из них в банке { $bank })
## Mini App page: the page's own words (bot/webapp/view.py: LABELS), then the server's answers and the ways in
app-title = Очко
app-bank = в банке
app-banker = Банкир
app-stake = ставка
app-balance = фишки
app-your_cards = Ваши карты
app-your_turn = Ваш ход
app-bottom = Нижняя карта
app-events = События
app-result = Итог раунда
app-no_game = Сейчас за этим столом нет игры. Начните её в группе: /newgame
app-connecting = Соединяемся…
app-offline = Нет связи — переподключаемся…
app-live = На связи
app-seconds = с
app-not_seated = Вы не за столом
app-waiting_next = ждут следующего раунда
app-players = Игроки
app-dark_card = втёмную
app-unauthorized = Не удалось проверить, кто вы. Откройте стол заново из Telegram.
app-not_member = Этот стол видят только участники группы.
app-bad_request = Запрос не распознан. Обновите страницу.
app-open_private = 📱 Стол в приложении
app-open_group = 📱 Открыть стол
refusal-group_button = Эта кнопка работает только в группе, где идёт игра.
refusal-stake_first = Сначала сделайте ставку: /bet и сумма от { $minimum } до { $maximum }.
refusal-bank_first = Сначала назначьте банк: /bank и сумма от { $minimum } до { $maximum }.
refusal-your_draw = { $action ->
        [stake] Ставка уже сделана — теперь ваш ход: /hit — ещё карту, /stand — хватит.
       *[other] Сейчас ваш ход: /hit — ещё карту, /stand — хватит.
    }
refusal-round_on = { $action ->
        [pass_bank] Раунд ещё идёт: банк можно передать, когда он закончится.
        [start] Раунд ещё идёт: следующий начнётся, когда этот закончится.
        [next_round] Раунд ещё идёт: следующий начнётся, когда этот закончится.
       *[other] Раунд ещё идёт: сейчас ходит { $turn_name }.
    }
refusal-bank_by_banker = Банк назначает банкир: { $banker_name }.
refusal-bank_all_in = В этом варианте банк не назначают: банкир кладёт в банк все свои фишки.
refusal-bank_named = Банк уже назначен: в банке { $bank }.
refusal-banker_no_stake = Банкир не ставит — он держит банк против всех ставок.
refusal-banker_no_dark = Банкир втёмную не берёт: /hit — ещё карту, /stand — хватит.
refusal-leaving_already = Вы и так выходите — как только закончится раунд.
refusal-cancel_started = Игра уже началась, а /cancel — только до первой раздачи. Закончить игру: /endgame.
refusal-cancel_creator = Закрыть стол может только его создатель ({ $creator_name }) или админ группы.
refusal-lang_group_admins = Язык группы меняют админы. Свой язык — /lang ru или /lang en в личке с ботом.
lang-group_switched = Язык группы: русский 🇷🇺
help-start = Как начать: /newgame → «{ btn-join }» → «{ btn-start }». Банкира выберет жребий, дальше ходят в порядке номеров на столе: чей ход — видно по 👉, а кнопки приходят в личку.
help-start_private = Как начать: в группе /newgame → «{ btn-join }» → «{ btn-start }». Банкира выберет жребий, дальше ходят в порядке номеров на столе: чей ход — видно по 👉. Ваши карты и кнопки хода будут приходить сюда.
help-rules = 📜 Правила для новичков: /rules
help-section-table = 🪑 <b>Стол</b>
help-section-turn = 🃏 <b>Ваш ход</b>
help-section-chips = 💰 <b>Фишки и проверка колоды</b>
help-section-other = ⚙ <b>Прочее</b>
refusal-no_dark = В этом варианте втёмную не играют.
chart-unavailable = 📈 Графики здесь не рисуются: у бота не установлена библиотека для них (matplotlib). Владельцу бота: pip install 'ochko-bot[chart]'.

## A call to play (issue 31): /notify, the 🔔 button of the lobby and results, the private
## notice and its buttons, the 📣 option of /settings
cmd-notify = звать меня, когда здесь откроют стол (/notify off — не звать)
notice-text = 🔔 В «{ $chat }» открыли стол — { $name } зовёт играть.
notice-btn-switch = 🔔 Звать меня
notice-btn-off = 🔕 Не звать
notice-on = 🔔 Позовём в личку, когда здесь откроют стол.
notice-on_closed = 🔔 Позовём, когда здесь откроют стол, — но сначала напишите боту в личку: зов приходит туда.
notice-off = 🔕 Больше не зовём.
notice-usage = /notify — звать меня, когда здесь откроют стол, или перестать; /notify on — звать, /notify off — не звать.
settings-notices = 📣 Зов к игре: { $value ->
        [0] выкл
       *[other] не чаще { $value } в час
    }
settings-btn-notices = { $value ->
        [0] 📣 выкл
       *[other] 📣 { $value }/ч
    }

# --- Seasons with a champion (issue 31) ---
# The word after /top that asks for the all-time table (typed, lower case; «все» works too).
top-arg_all = всё
top-season = 🏆 <b>Сезон { $number }</b> · { $days }
top-season-champion = 🏆 Чемпион сезона { $season }: { $name }
top-season-all = За всё время: /top всё
season-ended = 🏁 <b>Сезон { $number } окончен!</b> ({ $days })
season-place = { $place } { $name } — <b>{ $net }</b>
season-champion = 🏆 Чемпион — { $name }! Кубок будет стоять у имени весь следующий сезон.
season-length-off = выкл
season-length-week = неделя
season-length-month = месяц
settings-season = Сезоны: { $value }
settings-btn-season = 🏆 { $value }
settings-tz = Часовой пояс: UTC+{ $value }
settings-btn-tz = +{ $value }

## Replay: a settled round replayed in the Mini App, its deck checked in the page (issue 31)
btn-replay = 🔍 Проверить раунд { $round }
app-deck_hash = 🔒 Хеш колоды
app-replay_link = 🔍 Проверить раунд в повторе
app-replay-not_found = Такой игры нет.
app-replay-other_chat = Этот раунд сыгран в другом чате.
app-replay-title = Повтор раунда { $round }
app-replay-proof = Проверка колоды
app-replay-checking = Проверяем…
app-replay-holds = ✅ Колода честная: хеш совпал, карты шли по порядку
app-replay-fails = ❌ Проверка не прошла
app-replay-hash_ok = ✅ Колода { $n }: SHA-256 соли и порядка совпадает с хешем, показанным до первой карты
app-replay-hash_bad = ❌ Колода { $n }: SHA-256 соли и порядка — { $computed }, а до первой карты показан { $committed }
app-replay-deal_ok = ✅ Колода { $n }: каждая сданная карта — точно по порядку
app-replay-deal_bad = ❌ Колода { $n }: { $place }-й сдана { $card }, а по порядку — { $expected }
app-replay-bottom_bad = ❌ Нижняя карта { $card }, а последняя в порядке — { $expected }
app-replay-count_bad = ❌ Тасовки раунда не совпадают с раскрытыми колодами
app-replay-no_proof = Этот раунд сдан до того, как бот начал показывать хеш колоды: проверить нечего.
app-replay-no_crypto = ❌ Этот браузер не считает SHA-256 (WebCrypto): проверить здесь нельзя.
app-replay-commitment = Хеш:
app-replay-salt = Соль:
app-replay-order = Порядок:
app-replay-prev = ◀
app-replay-next = ▶
app-replay-first = ⏮
app-replay-last = ⏭
app-replay-step = { $n } из { $total }
app-replay-how = Проверка идёт здесь, в вашем браузере: SHA-256 строки «ochko-v1|соль|порядок» сверяется с хешем, показанным до первой карты, а каждая сданная карта — с порядком. Серверу верить не нужно.
replay-shuffled = 🔀 Колода перетасована: { $cards } карт, хеш { $hash }
replay-reshuffled = 🔄 Сброс перетасован: { $cards } карт, хеш { $hash }
replay-bottom = 👇 Нижняя карта: { $card }
replay-card = 🃏 { $name } получает { $card }
replay-card_dark = 🌑 { $name } берёт втёмную: { $card }
replay-stake = 💰 { $name } ставит { $amount }
replay-stood = ✋ { $name }: хватит
replay-to_bank = 🏦 { $name } → банк: { $amount }
replay-from_bank = 🏦 банк → { $name }: { $amount }
replay-settled = 🏁 Вскрываемся
help-verify_app = 🔍 /verify — кнопка повтора раунда: страница сама проверит колоду.

## Achievements (issue 31): the codes of rules/achievements.py, each earned once per person and chat
achievement-golden = Золотое очко
achievement-golden-about = два туза
achievement-natural = Очко с раздачи
achievement-natural-about = 21 на двух первых картах
achievement-long_21 = Очко добором
achievement-long_21-about = 21 на трёх картах и больше
achievement-dark_21 = Очко втёмную
achievement-dark_21-about = карта втёмную довела до 21
achievement-five_cards = Пять карт
achievement-five_cards-about = пять карт без перебора
achievement-va_bank = Ва-банк
achievement-va_bank-about = ставка на весь банк — и выигрыш
achievement-all_chips = Всё на кон
achievement-all_chips-about = все свои фишки на кону — и выигрыш
achievement-bank_broken = Банк сорван
achievement-bank_broken-about = выигрыш, после которого банк опустел
achievement-swept = Стол обчищен
achievement-swept-about = банкир забрал все ставки раунда, игроков двое и больше
achievement-big_win = Крупный куш
achievement-big_win-about = за раунд выиграно не меньше стартовых фишек
achievement-streak = Пять побед подряд
achievement-streak-about = пять выигранных раундов подряд в этом чате
achievement-comeback = Из грязи в князи
achievement-comeback-about = после пополнения фишек — вдвое больше стартовых
result-achievement = 🏅 { $name }: { $titles }
stats-achievements = 🏅 Достижения ({ $count }):
stats-achievement = { $title } — { $about }
stats-achievement_round = раунд { $round }
rules-achievements = 🏅 Золотое очко, ва-банк, сорванный банк… — достижения; ваши в /stats.
app-achievements = Достижения
