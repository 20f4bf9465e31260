//! What jitson-datafusion's and jitson-ballista's `sql` examples share: the
//! SQL they run over the generated log set (`logs.rs`), and how they compare
//! answers and times.

use std::time::Duration;

/// (label, query) pairs over table `t`.
pub const QUERIES: &[(&str, &str)] = &[
    ("count(*)", "SELECT count(*) FROM t"),
    (
        "group by 3 columns",
        "SELECT level, service, get_field(request, 'status') AS status, count(*) AS n FROM t \
         GROUP BY level, service, get_field(request, 'status') ORDER BY n DESC, level, service, status LIMIT 10",
    ),
    (
        "filter alone",
        "SELECT count(*) AS n FROM t WHERE level = 'ERROR'",
    ),
    (
        "filter + avg",
        "SELECT service, avg(latency_ms) AS avg_ms, max(user_id) AS max_user FROM t \
         WHERE level = 'ERROR' GROUP BY service ORDER BY service",
    ),
    (
        "limit 1000",
        "SELECT count(*) AS n FROM (SELECT message, request FROM t LIMIT 1000)",
    ),
    (
        "full scan",
        "SELECT sum(length(message)) AS chars, count(tags) AS tags, \
         sum(get_field(request, 'bytes')) AS bytes, count(get_field(request, 'user_agent')) AS agents FROM t",
    ),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Same {
    Exactly,
    /// Equal but for floats that differ by at most 1e-12 of their value: a
    /// sum over partitions is merged in the order the partial sums arrive,
    /// which varies from run to run, whichever reader ran.
    ButFloatRounding,
    No,
}

/// Compares two printed answers (`pretty_format_batches`) cell by cell.
pub fn same_answers(ours: &str, theirs: &str) -> Same {
    if ours == theirs {
        return Same::Exactly;
    }
    let cells = |text: &str| -> Vec<String> {
        text.split(['|', '\n'])
            .map(|c| c.trim().to_string())
            .collect()
    };
    let (a, b) = (cells(ours), cells(theirs));
    let close = |x: &String, y: &String| {
        x == y
            || match (x.parse::<f64>(), y.parse::<f64>()) {
                (Ok(x), Ok(y)) => (x - y).abs() <= 1e-12 * x.abs().max(y.abs()),
                _ => false,
            }
    };
    if a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| close(x, y)) {
        Same::ButFloatRounding
    } else {
        Same::No
    }
}

/// The median of `v` (not empty).
pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}
