"""SQL in, plan out: Spark variant syntax, the catalog, rewrite rules and pruning (``vpush.optimizer``)."""
