"""The names of Spark's built-in functions: ``SHOW FUNCTIONS`` on PySpark 4.3.0, operators left out.

A call of a name Spark does not have is Spark's ``UNRESOLVED_ROUTINE`` on both engines, rather than
a function the DuckDB engine refuses.
"""
from __future__ import annotations

SPARK_BUILTIN_FUNCTIONS = frozenset(
    """
abs acos acosh add_months aes_decrypt aes_encrypt aggregate and any any_value approx_count_distinct
approx_percentile approx_top_k approx_top_k_accumulate approx_top_k_combine approx_top_k_estimate
array array_agg array_append array_compact array_contains array_distinct array_except array_insert
array_intersect array_join array_max array_min array_position array_prepend array_remove
array_repeat array_size array_sort array_union arrays_overlap arrays_zip ascii asin asinh
assert_true atan atan2 atanh avg base64 between bigint bin binary bit_and bit_count bit_get
bit_length bit_or bit_xor bitmap_and_agg bitmap_bit_position bitmap_bucket_number
bitmap_construct_agg bitmap_count bitmap_or_agg bool_and bool_or boolean bround btrim cardinality
case cast cbrt ceil ceiling char char_length character_length chr coalesce collate collation
collations collect_list collect_set collect_union concat concat_ws contains conv convert_timezone
corr cos cosh cot count count_if count_min_sketch counter_diff covar_pop covar_samp crc32 csc
cume_dist curdate current_catalog current_database current_date current_path current_schema
current_time current_timestamp current_timezone current_user date date_add date_diff date_format
date_from_unix_date date_part date_sub date_trunc dateadd datediff datepart day dayname dayofmonth
dayofweek dayofyear decimal decode degrees dense_rank div double e element_at elt encode endswith
equal_null every exists exp explode explode_outer expm1 extract factorial filter find_in_set first
first_value flatten float floor forall format_number format_string from_avro from_base32 from_csv
from_json from_protobuf from_unixtime from_utc_timestamp from_xml get get_json_object getbit
greatest grouping grouping_id hash hex histogram_numeric hll_sketch_agg hll_sketch_estimate
hll_union hll_union_agg hmac hour hypot if ifnull ilike in initcap inline inline_outer
input_file_block_length input_file_block_start input_file_name instr int is_valid_utf8
is_valid_variant is_variant_null isnan isnotnull isnull jaro_winkler_similarity java_method
json_array_length json_object_keys json_tuple kll_merge_agg_bigint kll_merge_agg_double
kll_merge_agg_float kll_sketch_agg_bigint kll_sketch_agg_double kll_sketch_agg_float
kll_sketch_get_n_bigint kll_sketch_get_n_double kll_sketch_get_n_float
kll_sketch_get_quantile_bigint kll_sketch_get_quantile_double kll_sketch_get_quantile_float
kll_sketch_get_rank_bigint kll_sketch_get_rank_double kll_sketch_get_rank_float
kll_sketch_merge_bigint kll_sketch_merge_double kll_sketch_merge_float kll_sketch_to_string_bigint
kll_sketch_to_string_double kll_sketch_to_string_float kurtosis lag last last_day last_value lcase
lead least left len length levenshtein like listagg ln localtime localtimestamp locate log log10
log1p log2 lower lpad ltrim luhn_check make_date make_dt_interval make_interval make_time
make_timestamp make_timestamp_ltz make_timestamp_ntz make_valid_utf8 make_ym_interval map map_concat
map_contains_key map_entries map_filter map_from_arrays map_from_entries map_keys map_values
map_zip_with mask max max_by md5 mean measure median min min_by minute mod mode
monotonically_increasing_id month monthname months_between named_struct nanvl negative next_day not
now nth_value ntile nullif nullifzero nvl nvl2 octet_length or overlay parse_json parse_url
percent_rank percentile percentile_approx percentile_cont percentile_disc pi pmod posexplode
posexplode_outer position positive pow power printf python_worker_logs quarter quote radians
raise_error rand randn random randstr range rank reduce reflect regexp regexp_count regexp_extract
regexp_extract_all regexp_instr regexp_like regexp_replace regexp_substr regr_avgx regr_avgy
regr_count regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy repeat replace reverse right
rint rlike round row_number rpad rtrim schema_of_avro schema_of_csv schema_of_json schema_of_variant
schema_of_variant_agg schema_of_xml sec second sentences sequence session_user session_window sha
sha1 sha2 shiftleft shiftright shiftrightunsigned shuffle sign signum sin sinh size skewness slice
smallint some sort_array soundex space spark_partition_id split split_part sql_keywords sqrt
st_asbinary st_geogfromwkb st_geomfromwkb st_setsrid st_srid stack startswith std stddev stddev_pop
stddev_samp str_to_map string string_agg struct substr substring substring_index sum tan tanh
theta_difference theta_intersection theta_intersection_agg theta_sketch_agg theta_sketch_estimate
theta_union theta_union_agg time time_bucket time_diff time_from_micros time_from_millis
time_from_seconds time_to_micros time_to_millis time_to_seconds time_trunc timestamp
timestamp_micros timestamp_millis timestamp_nanos timestamp_seconds tinyint to_avro to_base32
to_binary to_char to_csv to_date to_json to_number to_protobuf to_time to_timestamp to_timestamp_ltz
to_timestamp_ntz to_unix_timestamp to_utc_timestamp to_varchar to_variant_object to_xml transform
transform_keys transform_values translate trim trunc try_add try_aes_decrypt try_avg try_divide
try_element_at try_make_interval try_make_timestamp try_make_timestamp_ltz try_make_timestamp_ntz
try_mod try_multiply try_parse_json try_parse_url try_reflect try_subtract try_sum try_to_binary
try_to_date try_to_number try_to_time try_to_timestamp try_url_decode try_validate_utf8
try_variant_array_append try_variant_get try_variant_insert try_variant_set tuple_difference_double
tuple_difference_integer tuple_difference_theta_double tuple_difference_theta_integer
tuple_intersection_agg_double tuple_intersection_agg_integer tuple_intersection_double
tuple_intersection_integer tuple_intersection_theta_double tuple_intersection_theta_integer
tuple_sketch_agg_double tuple_sketch_agg_integer tuple_sketch_estimate_double
tuple_sketch_estimate_integer tuple_sketch_summary_double tuple_sketch_summary_integer
tuple_sketch_theta_double tuple_sketch_theta_integer tuple_union_agg_double tuple_union_agg_integer
tuple_union_double tuple_union_integer tuple_union_theta_double tuple_union_theta_integer typeof
ucase unbase64 unhex uniform unix_date unix_micros unix_millis unix_nanos unix_seconds
unix_timestamp upper url_decode url_encode user uuid validate_utf8 var_pop var_samp variance
variant_array_append variant_delete variant_explode variant_explode_outer variant_get variant_insert
variant_set variant_strip_nulls vector_avg vector_cosine_similarity vector_inner_product
vector_l2_distance vector_norm vector_normalize vector_sum version weekday weekofyear when
width_bucket window window_time xpath xpath_boolean xpath_double xpath_float xpath_int xpath_long
xpath_number xpath_short xpath_string xxhash64 year zeroifnull zip_with
""".split()
)


# Spark's counts of arguments, measured: each built-in function called with 0 to 6 and 25
# arguments (`1`) on PySpark 4.3.0. Keyed by what its WRONG_NUM_ARGS prints ("[1, 2]", "> 0") and
# the counts of those it takes (it raises another error, or none, for them).
_ARITY_NAMES = {
    ('1', '1'): """
    abs acos acosh any array_agg array_compact array_distinct array_max array_min array_size
    ascii asin asinh atan atanh avg base64 bigint bin binary bit_and bit_count bit_length bit_or
    bit_xor bitmap_and_agg bitmap_bit_position bitmap_bucket_number bitmap_construct_agg
    bitmap_count bitmap_or_agg bool_and bool_or boolean cardinality cbrt char char_length
    character_length chr collation collect_list collect_set collect_union cos cosh cot count_if
    crc32 csc date date_from_unix_date day dayname dayofmonth dayofweek dayofyear decimal
    degrees double every exp expm1 factorial flatten float from_base32 grouping hex
    hll_sketch_estimate initcap int is_valid_utf8 is_valid_variant is_variant_null isnan
    isnotnull isnull json_array_length json_object_keys kll_sketch_get_n_bigint
    kll_sketch_get_n_double kll_sketch_get_n_float kll_sketch_to_string_bigint
    kll_sketch_to_string_double kll_sketch_to_string_float kurtosis last_day lcase len length ln
    log10 log1p log2 lower luhn_check make_valid_utf8 map_entries map_from_entries map_keys
    map_values max md5 mean measure median min month monthname negative not nullifzero
    octet_length parse_json percentile_cont percentile_disc positive quarter quote radians
    raise_error reverse rint schema_of_variant schema_of_variant_agg sec sha sha1 sign signum
    sin sinh size skewness smallint some soundex space sqrt st_geogfromwkb st_srid std stddev
    stddev_pop stddev_samp string sum tan tanh theta_intersection_agg theta_sketch_estimate time
    time_from_micros time_from_millis time_from_seconds time_to_micros time_to_millis
    time_to_seconds timestamp timestamp_micros timestamp_millis timestamp_nanos
    timestamp_seconds tinyint to_base32 to_variant_object try_parse_json try_url_decode
    try_validate_utf8 tuple_sketch_estimate_double tuple_sketch_estimate_integer
    tuple_sketch_theta_double tuple_sketch_theta_integer typeof ucase unbase64 unhex unix_date
    unix_micros unix_millis unix_nanos unix_seconds upper url_decode url_encode validate_utf8
    var_pop var_samp variance vector_avg vector_sum weekday weekofyear window_time year
    zeroifnull
    """,
    ('2', '2'): """
    add_months and array_append array_contains array_except array_intersect array_position
    array_prepend array_remove array_repeat array_union arrays_overlap atan2 bit_get collate
    contains corr covar_pop covar_samp date_add date_diff date_format date_part date_sub
    date_trunc dateadd datediff datepart div element_at encode endswith equal_null exists
    extract filter find_in_set forall format_number from_utc_timestamp get get_json_object
    getbit histogram_numeric hypot ifnull jaro_winkler_similarity kll_sketch_get_quantile_bigint
    kll_sketch_get_quantile_double kll_sketch_get_quantile_float kll_sketch_get_rank_bigint
    kll_sketch_get_rank_double kll_sketch_get_rank_float kll_sketch_merge_bigint
    kll_sketch_merge_double kll_sketch_merge_float left map_contains_key map_filter
    map_from_arrays mod nanvl next_day nullif nvl or pmod pow power regexp regexp_count
    regexp_like regexp_substr regr_avgx regr_avgy regr_count regr_intercept regr_r2 regr_slope
    regr_sxx regr_sxy regr_syy repeat right rlike session_window sha2 shiftleft shiftright
    shiftrightunsigned st_setsrid startswith theta_difference theta_intersection time_trunc
    to_char to_number to_utc_timestamp to_varchar transform transform_keys transform_values
    trunc try_add try_divide try_element_at try_mod try_multiply try_subtract try_to_number
    tuple_difference_double tuple_difference_integer tuple_difference_theta_double
    tuple_difference_theta_integer vector_cosine_similarity vector_inner_product
    vector_l2_distance xpath xpath_boolean xpath_double xpath_float xpath_int xpath_long
    xpath_number xpath_short xpath_string
    """,
    ('[1, 2]', '1 2'): """
    any_value approx_count_distinct approx_top_k_accumulate approx_top_k_combine
    approx_top_k_estimate array_sort assert_true bround btrim first first_value from_unixtime
    hll_sketch_agg hll_union_agg kll_merge_agg_bigint kll_merge_agg_double kll_merge_agg_float
    kll_sketch_agg_bigint kll_sketch_agg_double kll_sketch_agg_float last last_value listagg log
    ltrim randstr round rtrim schema_of_avro schema_of_csv schema_of_json schema_of_xml shuffle
    sort_array st_asbinary st_geomfromwkb string_agg theta_sketch_agg theta_union_agg to_avro
    to_binary to_csv to_date to_json to_time to_timestamp to_timestamp_ltz to_timestamp_ntz
    to_unix_timestamp to_xml trim try_to_binary try_to_date try_to_time try_to_timestamp
    tuple_intersection_agg_double tuple_intersection_agg_integer tuple_sketch_summary_double
    tuple_sketch_summary_integer vector_norm vector_normalize
    """,
    ('[2, 3]', '2 3'): """
    approx_percentile array_join convert_timezone from_avro from_csv from_json from_xml
    hll_union hmac ilike levenshtein like locate lpad max_by min_by months_between nth_value
    parse_url percentile percentile_approx position regexp_extract regexp_extract_all
    regexp_instr replace rpad sequence split substr substring theta_union time_bucket
    try_parse_url try_variant_get tuple_intersection_double tuple_intersection_integer
    tuple_intersection_theta_double tuple_intersection_theta_integer uniform variant_get
    """,
    ('0', '0'): """
    cume_dist curdate current_catalog current_database current_date current_path current_schema
    current_timezone current_user e input_file_block_length input_file_block_start
    input_file_name monotonically_increasing_id pi row_number session_user spark_partition_id
    user version
    """,
    ('3', '3'): """
    array_insert between conv if make_date make_time map_zip_with nvl2 slice split_part
    substring_index time_diff translate try_variant_array_append try_variant_insert
    variant_array_append variant_insert zip_with
    """,
    ('[0, 1]', '0 1'): """
    current_time current_timestamp localtime localtimestamp now ntile rand randn random uuid
    """,
    ('> 0', '1 2 3 4 5 6 25'): """
    coalesce concat_ws format_string hash hour minute printf second xxhash64
    """,
    ('> 1', '2 3 4 5 6 25'): """
    elt greatest java_method json_tuple least reflect stack try_reflect variant_delete
    """,
    ('1', '0 1'): """
    explode explode_outer inline inline_outer posexplode posexplode_outer
    """,
    ('[2, 3, 4]', '0 1 2 3 4'): """
    tuple_sketch_agg_double tuple_sketch_agg_integer tuple_union_double tuple_union_integer
    tuple_union_theta_double tuple_union_theta_integer
    """,
    ('[2, 3, 4]', '2 3 4'): """
    from_protobuf instr to_protobuf window
    """,
    ('[3, 4]', '3 4'): """
    aggregate overlay reduce regexp_replace
    """,
    ('2', '1 2'): """
    ceil ceiling floor
    """,
    ('[0, 1, 2, 3, 4]', '0 1 2 3 4'): """
    lag lead make_dt_interval
    """,
    ('[1, 2, 3]', '1 2 3'): """
    approx_top_k sentences str_to_map
    """,
    ('2n (n > 0)', '0 2 4 6'): """
    map named_struct
    """,
    ('[0, 1, 2]', '0 1 2'): """
    make_ym_interval unix_timestamp
    """,
    ('[1, 2, 3, 6, 7]', '1 2 3 6'): """
    make_timestamp try_make_timestamp
    """,
    ('[1, 2, 3]', '0 1 2 3'): """
    tuple_union_agg_double tuple_union_agg_integer
    """,
    ('[1, 2]', '0 1 2'): """
    counter_diff variant_strip_nulls
    """,
    ('[1, 2]', '1'): """
    try_avg try_sum
    """,
    ('[2, 3, 4, 5]', '2 3 4 5'): """
    aes_decrypt try_aes_decrypt
    """,
    ('[3, 4]', '0 1 2 3 4'): """
    try_variant_set variant_set
    """,
    ('0', ''): """
    cast
    """,
    ('0', '0 1 2'): """
    mode
    """,
    ('2', '2 3 4 5 6 25'): """
    decode
    """,
    ('4', '0 1 2 3 4'): """
    count_min_sketch
    """,
    ('4', '4'): """
    width_bucket
    """,
    ('6', '2 3 6'): """
    try_make_timestamp_ltz
    """,
    ('6', '2 6'): """
    try_make_timestamp_ntz
    """,
    ('[0, 1, 2, 3, 4, 5, 6, 7]', '0 1 2 3 4 5 6'): """
    make_interval
    """,
    ('[1, 2, 3, 4, 5, 6, 7]', '1 2 3 4 5 6'): """
    try_make_interval
    """,
    ('[1, 2, 3, 4, 5]', '0 1 2 3 4 5'): """
    mask
    """,
    ('[2, 3, 4, 5, 6]', '2 3 4 5 6'): """
    aes_encrypt
    """,
    ('[2, 6]', '2 3 6'): """
    make_timestamp_ltz
    """,
    ('[2, 6]', '2 6'): """
    make_timestamp_ntz
    """,
}
SPARK_ARITY: dict[str, tuple[str, frozenset[int]]] = {
    name: (spec, frozenset(int(k) for k in taken.split())) for (spec, taken), names in _ARITY_NAMES.items() for name in names.split()
}
"""Each function's count of arguments as Spark prints it, and the counts (of 0 to 6 and 25) it takes."""

SPARK_REQUIRED_PARAMETERS: dict[str, tuple[str, ...]] = {
    "count_min_sketch": ("column", "epsilon", "confidence", "seed"),
    "counter_diff": ("value",),
    "explode": ("collection",),
    "explode_outer": ("collection",),
    "inline": ("input",),
    "inline_outer": ("input",),
    "mask": ("str",),
    "posexplode": ("collection",),
    "posexplode_outer": ("collection",),
    "try_variant_set": ("v", "path", "val"),
    "tuple_sketch_agg_double": ("key", "summary"),
    "tuple_sketch_agg_integer": ("key", "summary"),
    "tuple_union_agg_double": ("child",),
    "tuple_union_agg_integer": ("child",),
    "tuple_union_double": ("first", "second"),
    "tuple_union_integer": ("first", "second"),
    "tuple_union_theta_double": ("first", "second"),
    "tuple_union_theta_integer": ("first", "second"),
    "variant_set": ("v", "path", "val"),
    "variant_strip_nulls": ("v",),
}
"""The functions of named parameters that Spark refuses with ``REQUIRED_PARAMETER_NOT_FOUND``
for too few arguments, measured on PySpark 4.3: called with ``k`` arguments, Spark names
parameter ``k`` of these as the one missing (and says "at index 0" for each)."""
