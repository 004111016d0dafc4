"""What the servers share: one way to name a missing row, the world's clock and the common name lists.

Every server's seed data and rules are its own; only what several of them had restated word for word lives here."""
from datetime import datetime

from prove_nb.server import DEFAULT_NOW, ToolError

NOW = DEFAULT_NOW                             # the worlds' clock, as a state's `meta["now"]` holds it
NOW_DT = datetime.fromisoformat(DEFAULT_NOW)  # the same instant as a datetime
TODAY = NOW_DT.date()

# Names that people in several servers draw from (each server takes the part it always used, so seeds are unchanged).
FIRST_NAMES = ("Ada", "Ben", "Chloe", "Dev", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kemi", "Liam", "Maya", "Noah",
               "Olga", "Priya", "Quentin", "Rosa", "Sami", "Tara", "Umar", "Vera", "Wei", "Yara", "Zoe", "Marco")
LAST_NAMES = ("Lovelace", "Okafor", "Martin", "Patel", "Rossi", "Haddad", "Kim", "Tanaka", "Silva", "Berg", "Adeyemi", "Walsh",
              "Novak", "Dubois", "Lindqvist", "Moreno", "Chen", "Ibrahim", "Kowalski", "Nakamura")
OWNERS = ("Ada Moreau", "Ben Okafor", "Chloe Martin", "Dev Patel", "Elena Rossi", "Farid Haddad", "Grace Kim", "Hiro Tanaka",
          "Ines Silva", "Jonas Berg", "Kemi Adeyemi", "Liam Walsh", "Maya Cohen", "Noah Fischer")  # of homes and vehicles

def need(st, table: str, key, what: str | None = None) -> dict:
    "The row `key` of `table`, or a ToolError naming the missing `what` (by default the table's name, '_' read as a space)."
    row = st.get(table, key)
    if row is None: raise ToolError(f"no {what or table.replace('_', ' ')} with id '{key}'")
    return row
