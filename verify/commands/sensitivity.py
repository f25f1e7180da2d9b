"""`boolverify sensitivity` (placeholder until implemented)."""


def register(sub):
    p = sub.add_parser("sensitivity", help="(not implemented yet)")
    p.set_defaults(func=lambda args: print("boolverify sensitivity: not implemented yet") or 2)
