//! A Ballista scheduler whose sessions read JSON through jitson.
//!
//! `jitson-scheduler --port PORT` listens on 127.0.0.1:PORT only. Logging
//! follows `RUST_LOG` (default `info`).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::ExitCode;
use std::sync::Arc;

use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::scheduler_process::start_server;

const USAGE: &str = "usage: jitson-scheduler --port PORT";

#[tokio::main]
async fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let port = match parse_port(std::env::args().skip(1)) {
        Ok(port) => port,
        Err(message) => {
            eprintln!("jitson-scheduler: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let config = Arc::new(jitson_ballista::scheduler_config(port));
    let address = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port);
    let result = async {
        let cluster = BallistaCluster::new_from_config(&config).await?;
        start_server(cluster, address, config).await
    }
    .await;
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("jitson-scheduler: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The value of `--port`.
fn parse_port(mut args: impl Iterator<Item = String>) -> Result<u16, String> {
    let mut port = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                let value = args.next().ok_or("--port needs a value")?;
                port = Some(value.parse().map_err(|_| format!("bad port `{value}`"))?);
            }
            "-h" | "--help" => return Err("help".to_string()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    port.ok_or_else(|| "--port is required".to_string())
}
