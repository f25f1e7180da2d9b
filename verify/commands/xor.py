"""`boolverify xor` (placeholder until implemented)."""


def register(sub):
    p = sub.add_parser("xor", help="(not implemented yet)")
    p.set_defaults(func=lambda args: print("boolverify xor: not implemented yet") or 2)
