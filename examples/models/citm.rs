//! `citm_catalog.json`: a concert-hall ticketing catalogue (Salle Pleyel, 2013–14):
//! 184 events, 243 performances with their prices and seat categories, and lookup
//! tables from id to name.
//!
//! The lookup tables are JSON objects keyed by decimal id strings (`"205705993"`);
//! they are kept as `HashMap<String, _>`. `blockNames` and `subjectNames` are empty
//! objects, and every `blockIds` is an empty array: their value types are what the
//! names imply. The fields documented as "always null" are `null` at every occurrence
//! in the file; their `Option<String>` type is a guess at what they would hold.

use std::collections::HashMap;

/// The whole file.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CitmCatalog {
    /// Area id → area name (17 entries).
    pub area_names: HashMap<String, String>,
    /// Audience sub-category id → name (1 entry).
    pub audience_sub_category_names: HashMap<String, String>,
    /// Block id → name; empty in the file.
    pub block_names: HashMap<String, String>,
    /// Event id → event (184 entries).
    pub events: HashMap<String, Event>,
    pub performances: Vec<Performance>,
    /// Seat category id → name (64 entries).
    pub seat_category_names: HashMap<String, String>,
    /// Sub-topic id → name (19 entries).
    pub sub_topic_names: HashMap<String, String>,
    /// Subject id → name; empty in the file.
    pub subject_names: HashMap<String, String>,
    /// Topic id → name (4 entries).
    pub topic_names: HashMap<String, String>,
    /// Topic id → its sub-topic ids (4 entries).
    pub topic_sub_topics: HashMap<String, Vec<u64>>,
    /// Venue code (`"PLEYEL_PLEYEL"`, not a number) → venue name (1 entry).
    pub venue_names: HashMap<String, String>,
}

/// One event (a concert programme, possibly performed several times).
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Event {
    /// Always null.
    pub description: Option<String>,
    pub id: u64,
    /// Null in 90 of 184 events.
    pub logo: Option<String>,
    pub name: String,
    pub sub_topic_ids: Vec<u64>,
    /// Always null.
    pub subject_code: Option<String>,
    /// Always null.
    pub subtitle: Option<String>,
    pub topic_ids: Vec<u64>,
}

/// One performance of an event.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Performance {
    pub event_id: u64,
    pub id: u64,
    /// Null in 135 of 243 performances.
    pub logo: Option<String>,
    /// Always null.
    pub name: Option<String>,
    pub prices: Vec<Price>,
    pub seat_categories: Vec<SeatCategory>,
    /// Always null.
    pub seat_map_image: Option<String>,
    /// Start time, Unix milliseconds (e.g. `1372701600000`).
    pub start: u64,
    pub venue_code: String,
}

/// The price of one seat category for one audience.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Price {
    /// Integers from 10000 to 180500; the unit is not stated in the file.
    pub amount: u64,
    pub audience_sub_category_id: u64,
    pub seat_category_id: u64,
}

/// A seat category and the areas it covers.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SeatCategory {
    pub areas: Vec<Area>,
    pub seat_category_id: u64,
}

/// An area of the hall.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Area {
    pub area_id: u64,
    /// Always an empty array in the file.
    pub block_ids: Vec<u64>,
}
