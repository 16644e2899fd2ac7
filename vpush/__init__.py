"""vpush: query shredded Parquet Variant data with Spark SQL semantics."""
