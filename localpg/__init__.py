"""A throwaway PostgreSQL on this machine, for the tests, the benchmarks and the sandbox: a
cluster initdb'd into a temporary folder, reachable on a unix socket only, removed afterwards
(`localpg.cluster`). Like localbotapi, it is the project's own stand-in for what the bot meets
in production; the product never imports it."""
