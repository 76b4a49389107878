player-unknown = Player { $id }
more = … and { $count } more
on = on
off = off
preset-classic36-name = Classic, 36 cards
preset-home36-name = Home rules, 36 cards
preset-big54-name = Big deck, 54 cards
preset-twodecks104-name = Two decks, 104 cards
preset-classic36-summary =
    Jack 2, queen 3, king 4, ace 11. The banker sets the bank.
    Players take turns: bet (up to the whole bank), then draw. 21 and two aces win on the spot.
    The bottom card is shown to all; blind cards allowed.
preset-home36-summary =
    Jack 2, queen 3, king 4, ace 11. The banker puts all their chips in the bank.
    Everyone bets first (all stakes together at most the bank), then draws; 21 pays at once.
    A bust costs the stake plus a fine; blind cards allowed.
preset-big54-summary =
    Like home rules, with a 54-card deck: twos to aces plus two jokers.
    A joker counts as anything from 1 to 11, whichever is best.
    A bust costs the stake plus a fine; blind cards allowed.
preset-twodecks104-summary =
    Two 52-card decks, face cards 10, ace 1 or 11. Everyone bets, then gets two cards.
    A banker dealt 21 takes every stake; a player dealt 21 is paid double.
    The banker draws first; the bank passes every round.
lobby-header = 🃏 <b>Ochko</b> — a table is open, take a seat
lobby-preset = Rule set: <b>{ $preset }</b>
lobby-players = Players ({ $count } of { $maximum }):
lobby-empty = Nobody yet — press “{ btn-join }”.
lobby-creator = host
lobby-private_hint = ✉ — gets cards privately. Everyone else: send the bot a message; until then, check your cards with “{ btn-peek }”.
lobby-need_more = { $count ->
        [one] Need { $count } more player to start.
       *[other] Need { $count } more players to start.
    }
lobby-ready = Ready to start: “{ btn-start }” or /deal.
lobby-full = The table is full.
btn-join = 🪑 Take a seat
btn-leave = 🚪 Leave
btn-start = ▶ Start
btn-cancel = ✖ Cancel
btn-open_private = ✉ Get cards privately
btn-bank_amount = 🏦 { $amount }
btn-bank_all = 🏦 All in: { $amount }
btn-decline_bank = 🙅 Decline the bank
btn-stake = { $amount }
btn-va_bank = Whole bank { $amount }
btn-stake_max = Max { $amount }
btn-hit = 🃏 Hit
btn-stand = ✋ Stand
btn-dark = 🌑 Blind card
btn-peek = 👁 My cards
btn-next = ▶ Next round
btn-pass_bank = 🔁 Pass the bank
btn-close = ✖ Close
btn-odds = 💡 Odds
odds-alert = Bust: { $bust } · 21: { $twenty_one }
odds-part = { $count } of { $total } ({ $percent }%)
odds-part_percent = { $percent }%
odds-no_cards = No cards are left to deal.
odds-not_drawing = Only the player drawing now can see the odds.
odds-press_button = Press 💡 under the table: only you will see the odds.
table-header = 🃏 <b>Round { $round }</b> · { $preset }
table-header_first = 🃏 <b>Ochko</b> · { $preset }
table-no_banker = 🏦 No banker
table-bottom = 🔻 Bottom card: { $card }
table-banker_row = 🏦 { $name } — { $details }
table-bank = bank <b>{ $bank }</b>
table-player_row = { $place }. { $name } — { $details }
table-stake = stake { $amount }
table-balance = 💰 { $amount }
table-no_cards = no cards
table-total = = { $total }
table-waiting_next = 🪑 Waiting for the next round: { $names }
table-time_left = ⏱ { $seconds } s
status-waiting = waiting
status-staked = waiting
status-on_turn = ⏳ their turn
status-stood = ✋ stands
status-bust = 💥 bust
status-twenty_one = ✅ 21
status-golden = 🏆 two aces
status-natural = ✅ natural 21
status-won = ✅ won
status-lost = ❌ lost
status-out = 💤 sits out
status-leaving = 🚪 leaving after the round
prompt-bank = 👉 { $name }: set the bank, up to { $maximum }
prompt-stake = 👉 { $name }: bet up to { $maximum }
prompt-draw = 👉 { $name }: hit or stand?
prompt-banker = 👉 🏦 { $name }: hit or stand?
prompt-round_over = 🏁 The round is over — results below.
prompt-ended = 🏁 The game is over.
result-header = 🏁 <b>Round { $round }: showdown</b>
result-banker = 🏦 Banker { $name }: { $cards } — <b>{ $total }</b>
result-row = { $name }: { $cards } — { $total } · { $payment }
result-out_row = { $name }: sat out
result-bust = bust 💥
result-twenty_one = ✅
result-golden = (two aces 🏆)
result-natural = natural
result-dark = with a blind card
pay-win = <b>+{ $amount }</b>
pay-lose = −{ $amount }
pay-lose_fine = −{ $amount } (incl. a { $fine } fine)
pay-push = push
result-banker_net = Banker this round: { $amount }
result-bank = 🏦 Bank: <b>{ $bank }</b>
result-balances = 💰 Chips:
result-balance_row = { $name } — { $amount }
table-commitment = 🔒 Deck hash: { $prefix }…
result-verify_hint = 🔓 Deck revealed — check it: /verify { $round }
verify-header = 🔐 <b>Deck check — round { $round }</b>
verify-shuffle = Deck { $n }
verify-recycled = Deck { $n } (discards reshuffled)
verify-commitment = Hash: <code>{ $value }</code>
verify-salt = Salt: <code>{ $value }</code>
verify-order = Order: { $value }
verify-dealt = { $count ->
        [one] { $count } card dealt
       *[other] { $count } cards dealt
    }: { $value }
verify-hash_ok = hash matches ✅
verify-hash_bad = hash does NOT match ❌
verify-deal_ok = cards dealt in order ✅
verify-deal_bad = cards NOT dealt in order ❌
verify-ok = Verdict: ✅ the deck was fair
verify-bad = Verdict: ❌ the check failed
verify-how = Check it without the bot: the SHA-256 hash of “ochko-v1|salt|order” must equal the hash shown before the deal; the order is the card codes separated by spaces: 10♥ → 10H, A♠ → AS, Q♦ → QD, 7♣ → 7C, ★ → X1 or X2.
refusal-not_revealed = 🔒 Round { $round }'s deck can be checked after the showdown.
refusal-no_round = This game has no round { $round }. { $played ->
        [0] No round has been played yet.
        [one] { $played } round played so far.
       *[other] { $played } rounds played so far.
    }
refusal-none_yet = 🔒 Nothing to check yet: a round's deck can be checked after the showdown.
verify-legacy = Round { $round } was dealt before the bot began showing deck hashes.
verify-no_game = There's no game here with a deck to check.
cmd-verify = check a round's deck [round number]
end-header = 🏁 <b>Game over</b>
end-reason-ended = The game was ended.
end-reason-all_dealt = Everyone has had a turn as banker.
end-reason-no_players = No players with chips are left.
end-reason-no_banker = Nobody can hold the bank.
end-reason-other = The game is over.
end-balances = 💰 Chips at the end of the game:
end-new_game = New game — /newgame
hand-header = 🃏 <b>Ochko</b> · { $chat } · round { $round }
hand-header_first = 🃏 <b>Ochko</b> · { $chat }
hand-chat_fallback = game #{ $game }
hand-cards = Your cards: { $cards }
hand-no_cards = No cards yet.
hand-dark_card = 🂠 (blind)
hand-total = Total: <b>{ $total }</b>
hand-total_dark = Visible total: <b>{ $total }</b> + a blind card
hand-stake = Stake: <b>{ $stake }</b> · chips: { $balance }
hand-balance = Chips: { $balance }
hand-banker_self = 🏦 You're the banker · chips: { $balance }
hand-banker_card = 🏦 Banker { $name }: { $cards }
hand-bottom = Bottom card: { $card }
hand-status = Status: { $status }
hand-turn_bank = ⏳ Your turn: set the bank, 1 to { $maximum }
hand-turn_stake = ⏳ Your turn: bet { $minimum } to { $maximum }
hand-turn_draw = ⏳ Your turn: hit or stand?
hand-waiting_for = Waiting for { $name }
hand-not_seated = You are not at this table.
peek-cards = Your cards: { $cards } — { $total }
peek-cards_dark = Your cards: { $cards } — { $total } + a blind card
peek-no_cards = You have no cards yet
peek-not_playing = You are not in the game
news-twenty_one = ✅ { $name }: 21! +{ $paid }
news-golden = 🏆 { $name }: two aces! +{ $paid }
news-bust = 💥 { $name }: bust, { $total }
news-bank_broken = 💥 The bank is cleaned out! { $name } is no longer the banker.
news-bank_passed = 🔁 The bank passes to { $name }
news-bank_declined = 🙅 { $old } declines the bank — it passes to { $name }
news-bank_nobody = 🔁 Nobody can take the bank
news-banker_lot = 🎲 The lot makes { $name } the banker
news-bank_set = 🏦 { $name } sets the bank at { $amount }
news-joined = 🪑 { $name } takes a seat
news-left = 🚪 { $name } leaves the table
news-leave_scheduled = 🚪 { $name } leaves after this round
news-timeout_stand = ⏱ { $name } ran out of time — stands
news-timeout_out = ⏱ { $name } ran out of time — sits this round out
news-sat_out = { $name } sits out: not enough chips
news-bank_empty = { $name } sits out: the bank is empty
news-naturals_banker = 🃏 Banker { $name } has a natural 21 — takes every stake
news-naturals_players = 🃏 Natural 21: { $names } — paid double
news-reshuffled = 🔄 The deck ran out — the discards are reshuffled
news-banker_turn = 🏦 Banker { $name } draws
news-dark = 🌑 { $name } takes a card blind
news-session_ended = 🏁 The game is over
refusal-not_your_turn = It's not your turn.
refusal-wrong_phase = Not at this stage of the game — see the table: /table.
refusal-amount_out_of_range = Pick an amount from { $minimum } to { $maximum }.
refusal-amount_none = You can't bet now: other stakes already cover the whole bank, or you have no chips.
refusal-cannot_afford = Not enough chips: you have { $balance }, so you can bet at most { $maximum }.
refusal-cannot_afford_fine = Your chips must cover the fine too: you have { $balance }, so you can bet at most { $maximum }.
refusal-too_many_cards = { $maximum ->
        [one] A hand holds at most { $maximum } card.
       *[other] A hand holds at most { $maximum } cards.
    }
refusal-deck_exhausted = The deck has run out.
refusal-option_disabled = This rule set doesn't allow that — see /rules.
refusal-cannot_pass_bank = You can't pass the bank now — /rules says when.
refusal-cannot_pass_bank_rounds = You can pass the bank after holding it for { $rounds ->
        [one] { $rounds } round
       *[other] { $rounds } rounds
    } — { $played } of { $rounds } played so far.
refusal-game_over = The game is already over. New game: /newgame
refusal-not_seated = You're not at the table — press “{ btn-join }” or type /join.
refusal-already_seated = You are already seated.
refusal-table_full = The table is full: { $seats ->
        [one] its only seat is taken.
       *[other] all { $seats } seats are taken.
    }
refusal-not_enough_players = { $minimum ->
        [one] At least { $minimum } player with chips is needed.
       *[other] At least { $minimum } players with chips are needed.
    }
refusal-not_enough_players_more = { $missing ->
        [one] { $missing } more player with chips is needed
       *[other] { $missing } more players with chips are needed
    } to start — invite someone to the table (“{ btn-join }” or /join).
refusal-invalid_variant = These settings don't go together.
refusal-illegal_action = That's not allowed now — the table's buttons show what you can do (/table).
refusal-stale_button = This button is out of date — use the latest table (/table).
refusal-foreign_game = This button belongs to another game — the current table: /table.
refusal-no_game = No game in this chat. Start one: /newgame
refusal-not_allowed = Only the host, the banker or an admin can do that.
refusal-private_needed = Send the bot a private message first — your cards go there.
refusal-bad_amount = The amount must be a whole number from { $minimum } to { $maximum }.
refusal-bad_amount_plain = Enter a positive whole number.
refusal-game_exists = A game is already running in this chat: /table
refusal-user_game_limit = { $limit ->
        [one] You're already playing at { $limit } table — that's the limit.
       *[other] You're already playing at { $limit } tables — that's the limit.
    }
refusal-house_busy = The banker bot is already banking at another table in this chat — finish that game or turn the banker bot off in /settings.
refusal-seated_in_chat = You're already seated at another table in this chat — finish that game first.
refusal-slow_down = Not so fast 🙂
refusal-generic = That's not possible — see the table's buttons (/table) or the rules (/rules).
help-header_group = 🃏 <b>Ochko</b> — the card game “21” for the whole group.
help-header_private = 🃏 <b>Ochko</b> — the card game “21” for groups: add the bot to a group and play there.
help-footer = Play with the buttons or the commands. Only you see your cards.
cmd-newgame = open a table [rule set]
cmd-join = take a seat
cmd-leave = leave the table
cmd-deal = start the game once everyone is seated
cmd-bank = set the bank: /bank 100
cmd-bet = place a bet: /bet 50
cmd-hit = take one more card
cmd-stand = take no more cards
cmd-dark = take a card blind
cmd-passbank = pass the bank, or decline it
cmd-table = show the table again
cmd-hand = send me my cards privately
cmd-hand-private = send me my cards again
cmd-endgame = end the game (host, banker, admin)
cmd-odds = your odds of a bust or 21 on the next card (sent privately)
cmd-odds-private = your odds of a bust or 21 on the next card
cmd-balance = my chips
cmd-top = the season's leaderboard (/top all — all-time)
cmd-stats = my statistics and achievements
cmd-chart = my chips over time (reply to someone: theirs)
cmd-rules = the rules of the game [rule set]
cmd-settings = chat settings (admins)
cmd-lang = language: /lang ru or /lang en
cmd-help = this help
cmd-start = start: your cards will come here
# /rules (bot/render/info.py: rules_parts), in the order shown: four parts of one phone screen each.
rules-header = 📜 <b>{ $preset }</b> ({ $name })
rules-unknown = No such rule set. Known: { $presets }
rules-running = 🎲 The rules of the running game.
rules-chat_overrides = ⚙ With this chat's settings.
rules-part-play = 🎯 <b>How to play</b>
rules-goal = Beat the banker: score more, but not over 21 — that's a bust.
rules-compare = Higher than the banker wins, lower loses, equal is a push.
rules-banker_last = The banker draws last; if they bust, all who didn't bust win.
rules-banker_first = The banker draws first, in secret.
rules-no_fine = 💥 A bust loses your stake to the bank.
rules-fine = 💥 A bust loses your stake to the bank, plus { $percent ->
        [100] a fine equal to it.
       *[other] a fine of { $percent }% of it.
    }
rules-both_bust = If the banker busts, all who did not bust win double (50 → +100); those who busted too push.
rules-hidden = 🂠 Others' cards stay hidden until the showdown; only you see yours.
rules-draw = Your turn: “{ btn-hit }” for a card, “{ btn-stand }” to stop. At most { $count ->
        [one] { $count } card
       *[other] { $count } cards
    } in a hand.
rules-instant_21 = ✅ 21 wins at once.
rules-golden = 🏆 So do two aces (the “golden ochko”).
rules-naturals = ✅ A natural is 21 on the first two cards. The banker's natural takes every stake, even from players who have one. A player's natural is paid double at once: stake 50 → +100.
rules-part-stakes = 💰 <b>The bank and the stakes</b>
rules-bank_pays = 🏦 The bank is what the banker puts up against the players. Win and the bank pays as much as you bet: stake 50 → +50. Lose and your stake goes to the bank.
rules-bank-named = The banker decides how much goes in the bank — up to all their chips.
rules-bank-all_in = The banker puts all their chips in the bank.
rules-bank_limit = The bank holds at most { $limit }.
rules-stakes-per_turn = Each player in turn bets, then draws straight away.
rules-stakes-before_draw = Everyone bets first, then each draws in turn.
rules-stakes-before_deal = Everyone bets before the deal.
rules-cap-bank = A stake is at most the bank; betting the whole bank is “va-bank”.
rules-cap-shared = All stakes together are at most the bank, leaving at least 1 for each player yet to bet.
rules-fine_cap = The fine must be covered too: with { $balance } chips you can bet up to { $stake }.
rules-cover = ⚠ The bank pays winners in turn while it has chips. A ⚠ on a stake button: if others win too, the bank may not pay you in full.
rules-part-cards = 🃏 <b>The deck and the deal</b>
rules-seats = { $minimum } to { $maximum ->
        [one] { $maximum } player
       *[other] { $maximum } players
    }, banker included.
rules-deck-36 = Deck: 36 cards (sixes to aces).
rules-deck-54 = Deck: 52 cards and two jokers.
rules-deck-104 = Deck: two 52-card decks.
rules-values-russian = Values: jack 2, queen 3, king 4, ace 11, the rest at face value.
rules-values-western = Values: face cards 10, ace 1 or 11 (whichever is better), the rest at face value.
rules-ace_low = On a bust, an ace counts as 1.
rules-jokers = A joker (★) counts as anything from 1 to 11, whichever is best.
rules-deal = First deal: { $count ->
        [one] { $count } card
       *[other] { $count } cards
    } each.
rules-banker_up = Everyone sees the banker's first card.
rules-bottom = 🔻 The bottom card is shown to all and dealt last: most likely nobody gets it.
rules-dark = 🌑 A blind card is seen by no one, not even you, until the showdown; after it you draw no more.
rules-dark_fine = Busting on a blind card costs no fine.
rules-no_dark = This rule set has no blind cards.
rules-part-bank = 🔁 <b>Passing the bank and ending the game</b>
rules-lot = 🎲 The first banker is chosen by lot.
rules-order-clockwise = Players take turns in seat order (1, 2, 3…); the bank then passes to player 1.
rules-order-counterclockwise = Players take turns in seat order (1, 2, 3…); the bank then passes to the last player.
rules-pass-when_broken = The bank passes on once it is cleaned out (no chips left in it).
rules-pass-every_round = The bank passes after every round.
rules-pass-voluntary = After holding the bank for { $rounds ->
        [one] { $rounds } round
       *[other] { $rounds } rounds
    }, the banker may pass it: “{ btn-pass_bank }” or /passbank.
rules-end_chips = 🏁 The game goes on until someone ends it (/endgame) or only one player has chips left.
rules-end_all_dealt = 🏁 The game ends once everyone has had a turn as banker.
rules-others = Other rule sets: { $presets }
balance-line = 💰 { $name }: <b>{ $amount }</b>
top-header = 🏆 <b>Leaderboard</b> { $period }
# The word after /top that asks for this month's table (typed, lower case).
top-arg_month = month
top-period-all = (all time)
top-period-day = (today)
top-period-week = (this week)
top-period-month = (this month)
top-row = { $place } { $name } — <b>{ $balance }</b> ({ $net }, { $rounds ->
        [one] { $rounds } round
       *[other] { $rounds } rounds
    })
top-row_period = { $place } { $name } — <b>{ $net }</b> ({ $rounds ->
        [one] { $rounds } round
       *[other] { $rounds } rounds
    }, { $wins ->
        [one] { $wins } win
       *[other] { $wins } wins
    })
top-empty = Nobody has played yet.
stats-header = 📊 <b>{ $name }</b>
stats-none = 📊 { $name }: no rounds played yet.
stats-rounds = { $rounds ->
        [one] { $rounds } round
       *[other] { $rounds } rounds
    }: { $wins ->
        [one] { $wins } win
       *[other] { $wins } wins
    }, { $losses ->
        [one] { $losses } loss
       *[other] { $losses } losses
    }, { $pushes ->
        [one] { $pushes } push
       *[other] { $pushes } pushes
    }
stats-twentyones = 21 — { $count ->
        [one] { $count } time
       *[other] { $count } times
    }
stats-golden = two aces — { $count ->
        [one] { $count } time
       *[other] { $count } times
    }
stats-busts = bust — { $count ->
        [one] { $count } time
       *[other] { $count } times
    }
stats-money = Biggest win: { $biggest } · net: { $net }
stats-win_rate = Win rate: { $percent }%
chart-title = { $name }: chips
chart-axis_balance = Chips
chart-caption = 📈 { $name }: now <b>{ $amount }</b> (started at { $start }, net { $net })
chart-none = 📈 { $name }: no chip history in this chat yet — play a round.
chart-failed = Couldn't draw the chart. Please try again later.
settings-header = ⚙ <b>Chat settings</b>
settings-preset = Rule set: <b>{ $preset }</b>
settings-dark = Blind cards: { $value }
settings-fine = Bust fine: { $value }%
settings-acelow = Ace as 1 on a bust: { $value }
settings-timeout = Turn time: { $value } s
settings-timeout_default = Turn time: default
settings-lang = Language: English
settings-overrides = Changed: { $items }
settings-hint = New settings apply from the next game.
settings-btn-dark = Blind { $value }
settings-btn-fine = Fine { $value }%
settings-btn-acelow = Ace=1 { $value }
settings-btn-timeout = ⏱ { $value } s
settings-house = 🏦 Banker bot: { $value }
settings-btn-house = 🏦 Banker bot { $value }
settings-btn-lang = 🇬🇧 English
settings-saved = Saved ✅
settings-invalid = Not possible: { $reason }
house-name = Banker bot
turn-mention = 👉 { $mention }, your turn — the buttons are on the table above.
pressed-done = ✅ Already done.
turn-warning = ⏳ Your turn: { $seconds } s left.
reply-pointer = 📬 { $name }: answer sent to your private chat.
cooldown = ⏳ Slow down: try again in { $seconds } s.
game-cancelled = ✖ The game was cancelled.
game-cancelled_by = ✖ { $name } cancelled the game.
game-ended_by = 🏁 { $name } ended the game.
lobby-expired = ⌛ The table closed: nobody started the game in time.
game-expired = ⌛ Game closed: nobody has played for a long time.
private-opened = ✉ Private chat open — your cards will come here.
lang-switched = Language: English 🇬🇧
lang-usage = Language: /lang ru or /lang en
group_only = This command works only in a group.
private_several = You're playing in several games — use the buttons under your cards, or type the command in the group.
error-internal = Something went wrong. Please try again.
joined = You're seated ✅
hand_in_group = Type /hand in the group where you play — your cards will come here.
unknown_preset = No rule set called { $name }. Known: { $known }

## Friday details: /endgame confirmation, the game's end, /rules of the running game, /chart axes
endgame-confirm =
    🏁 { $name }, end the game?
    This round's stakes go back to the players; the totals follow in one message.
    Only you can confirm — { $seconds } s.
btn-endgame_yes = 🏁 Yes, end it
btn-endgame_no = ↩ Keep playing
endgame-not_yours = Only { $name } can confirm.
endgame-expired = ⌛ Not confirmed — the game goes on.
endgame-kept = ↩ { $name }: the game goes on.
endgame-over = This game is already over.
end-header_by = 🏁 { $name } ended the game
prompt-ended_below = 🏁 The game is over — the totals are below.
chart-axis_hours = Time (UTC) · { $days }
chart-axis_dates = Date (UTC) · { $years }

## A way back for broke players: the seat refusal, the daily refill, its setting
refusal-cannot_cover_stake = A seat needs at least { $minimum ->
        [one] { $minimum } chip
       *[other] { $minimum } chips
    }; you have { $balance }.
refusal-no_chips_wait = Not enough chips to sit down: you have { $balance }, a seat needs { $minimum }. Your chips will be topped up to { $refill } in { $hours ->
        [0] { $minutes } min
       *[other] { $hours } h { $minutes } min
    } — then press “{ btn-join }” or /join.
refusal-no_chips_refill_off = Not enough chips to sit down: you have { $balance }, a seat needs { $minimum }. Refills are off in this chat — an admin can turn them on in /settings.
refill-done = 💰 { $name }: +{ $amount } — chips topped up to { $balance }. A refill comes once a day, to whoever has run out.
refill-toast = You're seated ✅ +{ $amount } { $amount ->
        [one] chip
       *[other] chips
    } — the daily refill.
settings-refill = Daily chip refill: { $value }
settings-btn-refill = 💰 Refill { $value }
refill-balance_ready = Not enough chips for a seat (it needs { $minimum }) — sit down anyway, “{ btn-join }” or /join, and they'll be topped up to { $refill } at once.
refill-balance_wait = Not enough chips for a seat (it needs { $minimum }). The next refill, to { $refill }, comes in { $hours ->
        [0] { $minutes } min
       *[other] { $hours } h { $minutes } min
    }.
refill-balance_off = Not enough chips to sit down (a seat needs { $minimum }). Refills are off in this chat — an admin can turn them on in /settings.

## Commands, settings options and languages: the command table (bot/commands.py), private /balance
cmd-next = start the next round
cmd-cancel = close the table before the game starts
settings-btn-preset = { $value }
private-no_game = You're not at any table right now. Games are played in groups: /newgame opens a table.
private-unknown_command = No such command. All commands: /help
private_only = This command works only in the private chat with the bot.
balance-private_header = 💰 <b>Your chips</b> (each chat has its own):
balance-private_line = • { $chat }: <b>{ $amount }</b>
balance-private_line_untitled = • an unavailable chat: <b>{ $amount }</b>
balance-private_none = 💰 You have not played in any chat yet. Add the bot to a group and open a table: /newgame

## A table that explains itself: partial payouts, the bank's cover, the banker's chips, pauses, precise refusals
btn-stake_uncovered = ⚠ { $label }
btn-resume = ▶ Resume
prompt-stake_cover = ⚠ the bank guarantees only { $cover }
prompt-paused = ⏸ Paused: nobody has played since the round began. It's { $name }'s turn: press “{ btn-resume }” or make a move.
prompt-paused_between = ⏸ Paused: nobody played this round, so the next one will not start by itself. Press “{ btn-next }” or /next.
prompt-next_round_in = ⏱ Next round in { $seconds } s — or now: “{ btn-next }” or /next.
prompt-next_round = The next round starts by itself — or now: “{ btn-next }”.
pay-win_short = <b>+{ $amount }</b> of { $due }: the bank ran dry
pay-push_dry = push: the bank is empty, so the { $due } won can't be paid
news-paid_short = (of { $due }: the bank ran dry)
refusal-range_bank = The bank is a whole number from { $minimum } to { $maximum }: /bank and the amount.
refusal-range_stake = A stake is a whole number from { $minimum } to { $maximum }: /bet and the amount.
refusal-not_your_turn_name = Not your turn — it's { $turn_name }'s.
refusal-wrong_phase_at = { $phase ->
        [lobby] The game has not started yet: press “{ btn-start }” or /deal.
        [bank] The banker is setting the bank — please wait.
        [round_over] The round is over. Next: “{ btn-next }” or /next.
       *[other] The round is still on — try again when it ends.
    }
refusal-cannot_pass_bank_banker = Only the banker can pass the bank — that's { $banker_name } now.
refusal-cannot_pass_bank_never = In this rule set the banker can't pass the bank at will.
refusal-admins_only = Only the group's admins can do this.
refusal-not_paused = The game isn't paused — it's waiting for a move.
joined_next = You're seated ✅ A round is under way — you'll play from the next one.
joined-private = Your cards come in the private chat with @{ $bot } — open it.
end-reason-expired = Nobody has played for a long time.
end-reason-unreachable = The bot can no longer write to this chat.
end-declined = Turned the bank down: { $names }
end-broke = Out of chips: { $names }
end-dealt = Banked already: { $names }
settings-invalid-dark_draw = in this rule set the banker draws first, so there are no blind cards
settings-invalid-ace_low = with face cards at 10, an ace already counts as 1 or 11
held-bank_note = ({ $bank } of it in the bank)
## Mini App page: the page's own words (bot/webapp/view.py: LABELS), then the server's answers and the ways in
app-title = Ochko
app-bank = in the bank
app-banker = Banker
app-stake = stake
app-balance = chips
app-your_cards = Your cards
app-your_turn = Your turn
app-bottom = Bottom card
app-events = Events
app-result = Round result
app-no_game = No game at this table right now. Start one in the group: /newgame
app-connecting = Connecting…
app-offline = Connection lost — reconnecting…
app-live = Connected
app-seconds = s
app-not_seated = You are not at the table
app-waiting_next = waiting for the next round
app-players = Players
app-dark_card = blind
app-unauthorized = Could not check who you are. Open the table again from Telegram.
app-not_member = Only members of the group can see this table.
app-bad_request = That request was not understood. Reload the page.
app-open_private = 📱 Table in the app
app-open_group = 📱 Open the table
refusal-group_button = This button works only in the group where the game is played.
refusal-stake_first = Place a bet first: /bet and an amount from { $minimum } to { $maximum }.
refusal-bank_first = Set the bank first: /bank and an amount from { $minimum } to { $maximum }.
refusal-your_draw = { $action ->
        [stake] Your stake is in — now it's your turn: /hit for another card, /stand to stop.
       *[other] It's your turn: /hit for another card, /stand to stop.
    }
refusal-round_on = { $action ->
        [pass_bank] The round is still on: you can pass the bank once it ends.
        [start] The round is still on: the next one starts once this one ends.
        [next_round] The round is still on: the next one starts once this one ends.
       *[other] The round is still on: it's { $turn_name }'s turn.
    }
refusal-bank_by_banker = Only the banker sets the bank — that's { $banker_name }.
refusal-bank_all_in = In this rule set nobody sets the bank: the banker puts up all their chips.
refusal-bank_named = The bank is already set at { $bank }.
refusal-banker_no_stake = The banker doesn't bet — the bank covers every stake.
refusal-banker_no_dark = The banker can't take a blind card: /hit for another card, /stand to stop.
refusal-leaving_already = You're already leaving at the end of this round.
refusal-cancel_started = The game has started, and /cancel works only before the first deal. To end the game: /endgame.
refusal-cancel_creator = Only the host ({ $creator_name }) or a group admin can close the table.
refusal-lang_group_admins = Only admins change the group's language. Your own: /lang ru or /lang en in the private chat with the bot.
lang-group_switched = Group language: English 🇬🇧
help-start = How to start: /newgame → “{ btn-join }” → “{ btn-start }”. The banker is drawn by lot, then players take turns in seat order: 👉 shows whose turn it is, and the buttons come to the private chat.
help-start_private = How to start: in a group, /newgame → “{ btn-join }” → “{ btn-start }”. The banker is drawn by lot, then players take turns in seat order: 👉 shows whose turn it is. Your cards and turn buttons will come here.
help-rules = 📜 New to the game? /rules
help-section-table = 🪑 <b>The table</b>
help-section-turn = 🃏 <b>Your turn</b>
help-section-chips = 💰 <b>Chips and the deck check</b>
help-section-other = ⚙ <b>Everything else</b>
refusal-no_dark = This rule set has no blind cards.
chart-unavailable = 📈 Charts are not drawn here: the bot's charting library (matplotlib) is not installed. For the bot's owner: pip install 'ochko-bot[chart]'.

## A call to play (issue 31): /notify, the 🔔 button of the lobby and results, the private
## notice and its buttons, the 📣 option of /settings
cmd-notify = call me when a table opens here (/notify off to stop)
notice-text = 🔔 A table opened in “{ $chat }” — { $name } calls you to play.
notice-btn-switch = 🔔 Call me
notice-btn-off = 🔕 Stop calling
notice-on = 🔔 We’ll call you privately when a table opens here.
notice-on_closed = 🔔 We’ll call you when a table opens here — but first write to the bot privately: the call comes there.
notice-off = 🔕 No more calls.
notice-usage = /notify — be called when a table opens here, or stop; /notify on to be called, /notify off to stop.
settings-notices = 📣 Call to play: { $value ->
        [0] off
       *[other] at most { $value } an hour
    }
settings-btn-notices = { $value ->
        [0] 📣 off
       *[other] 📣 { $value }/h
    }

# --- Seasons with a champion (issue 31) ---
# The word after /top that asks for the all-time table (typed, lower case).
top-arg_all = all
top-season = 🏆 <b>Season { $number }</b> · { $days }
top-season-champion = 🏆 Champion of season { $season }: { $name }
top-season-all = All-time: /top all
season-ended = 🏁 <b>Season { $number } is over!</b> ({ $days })
season-place = { $place } { $name } — <b>{ $net }</b>
season-champion = 🏆 The champion is { $name }! The cup stands beside their name all next season.
season-length-off = off
season-length-week = week
season-length-month = month
settings-season = Seasons: { $value }
settings-btn-season = 🏆 { $value }
settings-tz = Time zone: UTC+{ $value }
settings-btn-tz = +{ $value }

## Replay: a settled round replayed in the Mini App, its deck checked in the page (issue 31)
btn-replay = 🔍 Check round { $round }
app-deck_hash = 🔒 Deck hash
app-replay_link = 🔍 Check the round in its replay
app-replay-not_found = There is no such game.
app-replay-other_chat = This round was played in another chat.
app-replay-title = Round { $round } replay
app-replay-proof = Deck check
app-replay-checking = Checking…
app-replay-holds = ✅ The deck is fair: the hash matches and the cards followed the order
app-replay-fails = ❌ The check failed
app-replay-hash_ok = ✅ Deck { $n }: SHA-256 of the salt and order matches the hash shown before the first card
app-replay-hash_bad = ❌ Deck { $n }: SHA-256 of the salt and order is { $computed }, but the hash shown before the first card was { $committed }
app-replay-deal_ok = ✅ Deck { $n }: every card dealt exactly in order
app-replay-deal_bad = ❌ Deck { $n }: card { $place } dealt was { $card }, the order says { $expected }
app-replay-bottom_bad = ❌ The bottom card was { $card }, the order's last card is { $expected }
app-replay-count_bad = ❌ The round's shuffles do not match the decks revealed
app-replay-no_proof = This round was dealt before the bot showed deck hashes: there is nothing to check.
app-replay-no_crypto = ❌ This browser cannot compute SHA-256 (WebCrypto): it cannot be checked here.
app-replay-commitment = Hash:
app-replay-salt = Salt:
app-replay-order = Order:
app-replay-prev = ◀
app-replay-next = ▶
app-replay-first = ⏮
app-replay-last = ⏭
app-replay-step = { $n } of { $total }
app-replay-how = The check runs here, in your browser: SHA-256 of “ochko-v1|salt|order” is compared with the hash shown before the first card, and every dealt card with the order. No need to trust the server.
replay-shuffled = 🔀 Deck shuffled: { $cards } cards, hash { $hash }
replay-reshuffled = 🔄 Discards shuffled: { $cards } cards, hash { $hash }
replay-bottom = 👇 Bottom card: { $card }
replay-card = 🃏 { $name } gets { $card }
replay-card_dark = 🌑 { $name } draws blind: { $card }
replay-stake = 💰 { $name } stakes { $amount }
replay-stood = ✋ { $name } stands
replay-to_bank = 🏦 { $name } → bank: { $amount }
replay-from_bank = 🏦 bank → { $name }: { $amount }
replay-settled = 🏁 Showdown
help-verify_app = 🔍 /verify — a button to replay the round: the page checks the deck itself.

## Achievements (issue 31): the codes of rules/achievements.py, each earned once per person and chat
achievement-golden = Golden ochko
achievement-golden-about = two aces
achievement-natural = Ochko off the deal
achievement-natural-about = 21 with the first two cards
achievement-long_21 = Ochko by drawing
achievement-long_21-about = 21 from three cards or more
achievement-dark_21 = Blind ochko
achievement-dark_21-about = a blind card brought the hand to 21
achievement-five_cards = Five cards
achievement-five_cards-about = five cards without a bust
achievement-va_bank = Whole bank
achievement-va_bank-about = staked the whole bank (va-bank) and won
achievement-all_chips = All in
achievement-all_chips-about = staked all own chips and won
achievement-bank_broken = Bank cleaned out
achievement-bank_broken-about = the win that emptied the bank
achievement-swept = Swept the table
achievement-swept-about = the banker took every stake of a round of two players or more
achievement-big_win = Big win
achievement-big_win-about = won at least the starting chips in one round
achievement-streak = Five in a row
achievement-streak-about = five rounds won in a row in this chat
achievement-comeback = Rags to riches
achievement-comeback-about = from a chip refill to twice the starting chips
result-achievement = 🏅 { $name }: { $titles }
stats-achievements = 🏅 Achievements ({ $count }):
stats-achievement = { $title } — { $about }
stats-achievement_round = round { $round }
rules-achievements = 🏅 Golden ochko, a whole-bank stake, a bank cleaned out… earn achievements: see /stats.
app-achievements = Achievements
