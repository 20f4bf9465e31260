//! The SQL the examples run over the generated log set (`logs.rs`), as
//! (label, query) over a table named `t`: jitson-datafusion's `sql` example
//! and jitson-ballista's `sql` example share them.

/// (label, query) pairs over table `t`.
pub const QUERIES: &[(&str, &str)] = &[
    ("count(*)", "SELECT count(*) FROM t"),
    (
        "group by 3 columns",
        "SELECT level, service, get_field(request, 'status') AS status, count(*) AS n FROM t \
         GROUP BY level, service, get_field(request, 'status') ORDER BY n DESC, level, service, status LIMIT 10",
    ),
    (
        "filter + avg",
        "SELECT service, avg(latency_ms) AS avg_ms, max(user_id) AS max_user FROM t \
         WHERE level = 'ERROR' GROUP BY service ORDER BY service",
    ),
    (
        "full scan",
        "SELECT sum(length(message)) AS chars, count(tags) AS tags, \
         sum(get_field(request, 'bytes')) AS bytes, count(get_field(request, 'user_agent')) AS agents FROM t",
    ),
];
