"""Step 14: screens.live_result: the result message that still carries the next round's
buttons and countdown, and the round it shows."""

from typing import Final

# JSON {"message_id": …, "event": the RoundSettled it shows}, NULL when none. Kept in the
# database, not only in delivery's memory: a restart between a result and the next round must
# still take the countdown off it once the game moves on (the event renders its record).
APPLY: Final = "ALTER TABLE screens ADD COLUMN live_result TEXT;"
