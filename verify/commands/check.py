"""`boolverify check` (placeholder until implemented)."""


def register(sub):
    p = sub.add_parser("check", help="run every claim in theorems/ and print the report")
    p.set_defaults(func=lambda args: print("not implemented yet") or 2)
