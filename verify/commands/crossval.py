"""`boolverify crossval` (placeholder until implemented)."""


def register(sub):
    p = sub.add_parser("crossval", help="(not implemented yet)")
    p.set_defaults(func=lambda args: print("boolverify crossval: not implemented yet") or 2)
