"""`boolverify derive` (placeholder until implemented)."""


def register(sub):
    p = sub.add_parser("derive", help="(not implemented yet)")
    p.set_defaults(func=lambda args: print("boolverify derive: not implemented yet") or 2)
