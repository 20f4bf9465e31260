//! The parts of the sqllogictest runner (`tests/sqllogictest.rs`) that are
//! not the run itself, each with its unit tests: the data files the records
//! read ([`data`]), the database that registers jitson ([`db`]), which
//! records are JSON ones ([`select`]) and the plan-name mapping
//! ([`mapping`]). See docs/datafusion.md, "DataFusion's own tests".

pub mod data;
pub mod db;
pub mod mapping;
pub mod select;
