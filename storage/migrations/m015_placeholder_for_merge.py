"""Step 15: nothing (a placeholder: this branch's step 16 needs a step 15 to run alone; the
real step 15 comes from another branch, and this file goes at the merge)."""

from typing import Final

APPLY: Final = "SELECT 1;"
