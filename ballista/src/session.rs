//! One session for every process of a cluster: the client, the scheduler and
//! the executors all build theirs here, so all three agree on the codecs and
//! the JSON format.

use std::path::Path;
use std::sync::Arc;

use ballista_core::extension::SessionConfigExt;
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_executor::executor_process::ExecutorProcessConfig;
use ballista_scheduler::config::SchedulerConfig;
use datafusion::common::Result;
use datafusion::execution::SessionState;
use datafusion::prelude::SessionConfig;
use jitson_datafusion::{JitsonFormatFactory, JitsonWriteJson};

use crate::codec::{JitsonLogicalCodec, JitsonPhysicalCodec};
use crate::copy::JitsonCopyOptions;
use crate::table::JitsonTableFactory;

/// The only address jitson's programs listen on.
pub const LOCALHOST: &str = "127.0.0.1";

/// `config` with jitson's logical and physical codecs (each wrapping
/// Ballista's own).
pub fn with_jitson_codecs(config: SessionConfig) -> SessionConfig {
    config
        .with_ballista_logical_extension_codec(Arc::new(JitsonLogicalCodec::default()))
        .with_ballista_physical_extension_codec(Arc::new(JitsonPhysicalCodec::default()))
}

/// Ballista's session configuration (`SessionConfig::new_with_ballista`:
/// among other things, string columns stay `Utf8`, never `Utf8View`) with
/// jitson's codecs.
pub fn session_config() -> SessionConfig {
    with_jitson_codecs(SessionConfig::new_with_ballista())
}

/// The session state of every jitson process in a Ballista cluster:
/// Ballista's default session for `config` (its optimizer rules and
/// functions) with jitson's codecs, [`JitsonFormatFactory`] as the format of
/// the extension "json", [`JitsonTableFactory`] making the tables of
/// `CREATE EXTERNAL TABLE … STORED AS JSON` (or `NDJSON`),
/// [`JitsonWriteJson`] (`DataFrame::write_json`, which names DataFusion's
/// format, written by jitson's), and [`JitsonCopyOptions`], which keeps a
/// `COPY`'s `format.*` options in its format (`datafusion-proto` drops the
/// `OPTIONS` map on the way to the scheduler).
pub fn session_state(config: SessionConfig) -> Result<SessionState> {
    let config = with_jitson_codecs(config.upgrade_for_ballista());
    let mut state = ballista_core::utils::default_session_builder(config)?;
    state.register_file_format(Arc::new(JitsonFormatFactory::new()), true)?;
    state.add_analyzer_rule(Arc::new(JitsonWriteJson));
    state.add_analyzer_rule(Arc::new(JitsonCopyOptions));
    let factory = Arc::new(JitsonTableFactory::new());
    let factories = state.table_factories_mut();
    factories.insert("JSON".to_string(), Arc::clone(&factory) as _);
    factories.insert("NDJSON".to_string(), factory as _);
    Ok(state)
}

/// [`session_state`] of [`session_config`].
pub fn default_session_state() -> Result<SessionState> {
    session_state(session_config())
}

/// A scheduler listening on 127.0.0.1:`port` whose sessions are
/// [`session_state`]s, decoding plans with jitson's codecs.
pub fn scheduler_config(port: u16) -> SchedulerConfig {
    SchedulerConfig {
        bind_host: LOCALHOST.to_string(),
        external_host: LOCALHOST.to_string(),
        bind_port: port,
        override_config_producer: Some(Arc::new(session_config)),
        override_session_builder: Some(Arc::new(session_state)),
        override_logical_codec: Some(Arc::new(JitsonLogicalCodec::default())),
        override_physical_codec: Some(Arc::new(JitsonPhysicalCodec::default())),
        ..SchedulerConfig::default()
    }
}

/// Where an executor listens and whom it serves.
#[derive(Clone, Debug)]
pub struct ExecutorPorts {
    /// The scheduler's port on 127.0.0.1.
    pub scheduler: u16,
    /// The executor's Arrow Flight port (shuffle and result fetches).
    pub flight: u16,
    /// The executor's gRPC port (used by push-based scheduling only, but
    /// reserved either way so two executors never share one).
    pub grpc: u16,
}

/// An executor on 127.0.0.1 (listening and advertised), pulling tasks from
/// the scheduler at 127.0.0.1, decoding them with jitson's codecs and the
/// functions of [`session_state`], keeping its shuffle files under
/// `work_dir`, and running `vcores` tasks at once.
///
/// The functions matter: Ballista's default executor registry holds
/// DataFusion's core functions but not the nested ones (`array_has`,
/// `unnest`'s helpers, …) that a session plans with, and an executor that
/// lacks one cannot decode its task.
pub fn executor_config(
    ports: &ExecutorPorts,
    work_dir: &Path,
    vcores: usize,
) -> Result<ExecutorProcessConfig> {
    let functions = BallistaFunctionRegistry::from(&default_session_state()?);
    Ok(ExecutorProcessConfig {
        bind_host: LOCALHOST.to_string(),
        external_host: Some(LOCALHOST.to_string()),
        port: ports.flight,
        grpc_port: ports.grpc,
        scheduler_host: LOCALHOST.to_string(),
        scheduler_port: ports.scheduler,
        scheduler_connect_timeout_seconds: 30,
        vcores,
        work_dir: Some(work_dir.to_string_lossy().into_owned()),
        override_config_producer: Some(Arc::new(session_config)),
        override_logical_codec: Some(Arc::new(JitsonLogicalCodec::default())),
        override_physical_codec: Some(Arc::new(JitsonPhysicalCodec::default())),
        override_function_registry: Some(Arc::new(functions)),
        ..ExecutorProcessConfig::default()
    })
}
