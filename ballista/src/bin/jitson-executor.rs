//! A Ballista executor that decodes jitson's scans.
//!
//! `jitson-executor --scheduler-port P --port F --grpc-port G --work-dir DIR
//! [--vcores N]` pulls tasks from the scheduler at 127.0.0.1:P, serves Arrow
//! Flight on 127.0.0.1:F (and reserves G for push-based scheduling), keeps
//! shuffle files under DIR, and runs N tasks at once (default 2). It stops
//! on SIGINT or SIGTERM. Logging follows `RUST_LOG` (default `info`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use ballista_executor::executor_process::start_executor_process;
use jitson_ballista::ExecutorPorts;

const USAGE: &str = "usage: jitson-executor --scheduler-port PORT --port PORT --grpc-port PORT \
                     --work-dir DIR [--vcores N]";

struct Args {
    ports: ExecutorPorts,
    work_dir: PathBuf,
    vcores: usize,
}

#[tokio::main]
async fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let args = match parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("jitson-executor: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = std::fs::create_dir_all(&args.work_dir) {
        eprintln!(
            "jitson-executor: cannot create {}: {e}",
            args.work_dir.display()
        );
        return ExitCode::FAILURE;
    }
    let config = match jitson_ballista::executor_config(&args.ports, &args.work_dir, args.vcores) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("jitson-executor: {e}");
            return ExitCode::FAILURE;
        }
    };
    match start_executor_process(Arc::new(config)).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("jitson-executor: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut scheduler, mut flight, mut grpc, mut work_dir, mut vcores) =
        (None, None, None, None, 2);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--scheduler-port" => scheduler = Some(port(&value()?)?),
            "--port" => flight = Some(port(&value()?)?),
            "--grpc-port" => grpc = Some(port(&value()?)?),
            "--work-dir" => work_dir = Some(PathBuf::from(value()?)),
            "--vcores" => {
                let v = value()?;
                vcores = v.parse().map_err(|_| format!("bad --vcores `{v}`"))?;
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(Args {
        ports: ExecutorPorts {
            scheduler: scheduler.ok_or("--scheduler-port is required")?,
            flight: flight.ok_or("--port is required")?,
            grpc: grpc.ok_or("--grpc-port is required")?,
        },
        work_dir: work_dir.ok_or("--work-dir is required")?,
        vcores,
    })
}

fn port(value: &str) -> Result<u16, String> {
    value.parse().map_err(|_| format!("bad port `{value}`"))
}
