//! The database the records run against: DataFusion's own sqllogictest
//! engine (`datafusion_sqllogictest::DataFusion`, which formats and
//! normalizes results exactly as DataFusion's harness does) over a context
//! with jitson registered, with two rewrites of its output rows.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use datafusion_sqllogictest::{DFColumnType, DFOutput, DFSqlLogicTestError, DataFusion};
use sqllogictest::{AsyncDB, DBOutput};

use crate::mapping;

pub struct JitsonDb {
    inner: DataFusion,
    /// The temporary root standing for DataFusion's checkout, as object_store
    /// writes paths (no leading `/`).
    root: String,
    /// Set when the mapping changed a value of the current record's output.
    mapped: Arc<AtomicBool>,
    /// Whether the mapping is applied (`--no-mapping` turns it off).
    map: bool,
}

impl JitsonDb {
    pub fn new(inner: DataFusion, root: String, mapped: Arc<AtomicBool>, map: bool) -> Self {
        JitsonDb {
            inner,
            root,
            mapped,
            map,
        }
    }

    /// The rows as DataFusion's harness would show them in its own checkout:
    /// 1. the temporary root replaced by `WORKSPACE_ROOT` — what DataFusion's
    ///    `normalize_paths` does with the path of its checkout (here the
    ///    checkout is laid out under a temporary directory, so its own
    ///    replacement does not apply); not counted as a mapping;
    /// 2. jitson's operator names mapped to DataFusion's ([`mapping`]),
    ///    which marks the record as mapped.
    fn normalize(&self, mut rows: Vec<Vec<String>>) -> Vec<Vec<String>> {
        for value in rows.iter_mut().flatten() {
            if value.contains(&self.root) {
                *value = value.replace(&self.root, "WORKSPACE_ROOT");
            }
        }
        if self.map && mapping::apply(&mut rows) {
            self.mapped.store(true, Ordering::Relaxed);
        }
        rows
    }
}

#[async_trait]
impl AsyncDB for JitsonDb {
    type Error = DFSqlLogicTestError;
    type ColumnType = DFColumnType;

    async fn run(&mut self, sql: &str) -> Result<DFOutput, Self::Error> {
        match self.inner.run(sql).await? {
            DBOutput::Rows { types, rows } => Ok(DBOutput::Rows {
                types,
                rows: self.normalize(rows),
            }),
            other => Ok(other),
        }
    }

    fn engine_name(&self) -> &str {
        self.inner.engine_name()
    }

    async fn sleep(dur: Duration) {
        tokio::time::sleep(dur).await;
    }

    async fn shutdown(&mut self) {
        self.inner.shutdown().await;
    }
}
