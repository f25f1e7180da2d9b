"""Report layer: the claims registry, the runner behind ``boolverify check``, the pytest worker
processes it shares with ``boolverify mutants`` (:mod:`verify.report.workers`), the mutation
catalogue (:mod:`verify.report.mutation`), the pytest plugins that record evidence, figures,
and the README claims table."""
