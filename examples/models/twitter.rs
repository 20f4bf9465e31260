//! `twitter.json`: one page of Twitter v1.1 search results (`GET search/tweets`, query
//! `一`, August 2014): 100 statuses, 73 of which are retweets carrying the original
//! status in `retweeted_status`, plus the `search_metadata` block.
//!
//! In this copy of the file the numeric ids of 2^53 or more (status, media and
//! `max_id` ids: 197 of the 474 numbers that have an `_str` twin) went through a
//! double when the file was produced: each is written as the shortest decimal of the
//! nearest `f64`, padded with zeros (`"id": 505874924095815700` next to
//! `"id_str": "505874924095815681"`), so as a `u64` it usually differs from its
//! `_str` twin (16 of the 197 happen to agree). They are still plain integers that
//! fit `u64`. Smaller ids (users, mentions) are exact.
//!
//! `contributors`, `coordinates`, `geo` and `place` are `null` in every status. The
//! Twitter API documents them as objects or arrays; since nothing in the file shows
//! their shape, they are modelled as `Option<String>`, which accepts the `null`s and
//! nothing that is not there.

/// The whole file.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields)]
pub struct Twitter {
    pub statuses: Vec<Status>,
    pub search_metadata: SearchMetadata,
}

/// A tweet.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields)]
pub struct Status {
    pub metadata: StatusMetadata,
    /// E.g. `"Sun Aug 31 00:29:15 +0000 2014"`.
    pub created_at: String,
    pub id: u64,
    pub id_str: String,
    pub text: String,
    /// An HTML `<a>` element naming the client.
    pub source: String,
    pub truncated: bool,
    pub in_reply_to_status_id: Option<u64>,
    pub in_reply_to_status_id_str: Option<String>,
    pub in_reply_to_user_id: Option<u64>,
    pub in_reply_to_user_id_str: Option<String>,
    pub in_reply_to_screen_name: Option<String>,
    pub user: User,
    /// Always null in the file.
    pub geo: Option<String>,
    /// Always null in the file.
    pub coordinates: Option<String>,
    /// Always null in the file.
    pub place: Option<String>,
    /// Always null in the file.
    pub contributors: Option<String>,
    /// Present in the 73 retweets; never present inside a `retweeted_status`.
    pub retweeted_status: Option<Box<Status>>,
    pub retweet_count: u64,
    pub favorite_count: u64,
    pub entities: StatusEntities,
    pub favorited: bool,
    pub retweeted: bool,
    /// Present exactly in the statuses whose entities have a URL or a photo (15 of 100;
    /// 8 of the 73 retweeted statuses).
    pub possibly_sensitive: Option<bool>,
    pub lang: String,
}

/// A status's `metadata`.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields)]
pub struct StatusMetadata {
    /// Always `"recent"` in the file.
    pub result_type: String,
    pub iso_language_code: String,
}

/// The author of a status.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields)]
pub struct User {
    pub id: u64,
    pub id_str: String,
    pub name: String,
    pub screen_name: String,
    pub location: String,
    pub description: String,
    pub url: Option<String>,
    pub entities: UserEntities,
    pub protected: bool,
    pub followers_count: u64,
    pub friends_count: u64,
    pub listed_count: u64,
    pub created_at: String,
    pub favourites_count: u64,
    /// Seconds from UTC, negative west of Greenwich (e.g. `-36000`).
    pub utc_offset: Option<i64>,
    pub time_zone: Option<String>,
    pub geo_enabled: bool,
    pub verified: bool,
    pub statuses_count: u64,
    pub lang: String,
    pub contributors_enabled: bool,
    pub is_translator: bool,
    pub is_translation_enabled: bool,
    pub profile_background_color: String,
    pub profile_background_image_url: String,
    pub profile_background_image_url_https: String,
    pub profile_background_tile: bool,
    pub profile_image_url: String,
    pub profile_image_url_https: String,
    /// Absent for 14 of the 100 status authors and 2 of the 73 retweeted authors.
    pub profile_banner_url: Option<String>,
    pub profile_link_color: String,
    pub profile_sidebar_border_color: String,
    pub profile_sidebar_fill_color: String,
    pub profile_text_color: String,
    pub profile_use_background_image: bool,
    pub default_profile: bool,
    pub default_profile_image: bool,
    pub following: bool,
    pub follow_request_sent: bool,
    pub notifications: bool,
}

/// The links found in a user's profile.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields)]
pub struct UserEntities {
    /// Present only when the user has a profile URL.
    pub url: Option<UrlList>,
    pub description: UrlList,
}

/// `{"urls": [...]}`.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields)]
pub struct UrlList {
    pub urls: Vec<Url>,
}

/// A shortened link and where it occurs in the text.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields)]
pub struct Url {
    pub url: String,
    pub expanded_url: String,
    pub display_url: String,
    /// Start and end offsets in the text, in characters.
    pub indices: [u64; 2],
}

/// What a status's text refers to.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields)]
pub struct StatusEntities {
    pub hashtags: Vec<Hashtag>,
    /// Cashtags such as `$TWTR`, shaped like hashtags; empty in every status.
    pub symbols: Vec<Hashtag>,
    pub urls: Vec<Url>,
    pub user_mentions: Vec<UserMention>,
    /// Present only in statuses with a photo (6 of 100, 4 of 73 retweeted).
    pub media: Option<Vec<Media>>,
}

/// A hashtag (or cashtag) in the text.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields)]
pub struct Hashtag {
    pub text: String,
    pub indices: [u64; 2],
}

/// An `@mention` in the text.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields)]
pub struct UserMention {
    pub screen_name: String,
    pub name: String,
    pub id: u64,
    pub id_str: String,
    pub indices: [u64; 2],
}

/// An attached photo.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields)]
pub struct Media {
    pub id: u64,
    pub id_str: String,
    pub indices: [u64; 2],
    pub media_url: String,
    pub media_url_https: String,
    pub url: String,
    pub display_url: String,
    pub expanded_url: String,
    /// Always `"photo"` in the file.
    #[serde(rename = "type")]
    pub kind: String,
    pub sizes: Sizes,
    /// Present when the photo was first posted in another status (4 of the 6 photos in statuses, 1 of the 4 in retweeted ones).
    pub source_status_id: Option<u64>,
    pub source_status_id_str: Option<String>,
}

/// The sizes a photo is available in.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields)]
pub struct Sizes {
    pub medium: Size,
    pub small: Size,
    pub thumb: Size,
    pub large: Size,
}

/// One size of a photo.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields)]
pub struct Size {
    pub w: u64,
    pub h: u64,
    pub resize: Resize,
}

/// How a photo is fitted to a size.
#[derive(
    jitson::Decode,
    jitson::Encode,
    serde::Deserialize,
    serde::Serialize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
)]
#[serde(rename_all = "lowercase")]
pub enum Resize {
    /// Scaled to fit, aspect ratio kept.
    Fit,
    /// Cropped to the box (the `thumb` size).
    Crop,
}

/// The `search_metadata` block.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields)]
pub struct SearchMetadata {
    /// Seconds (`0.087`); the only non-integer number in the file.
    pub completed_in: f64,
    pub max_id: u64,
    pub max_id_str: String,
    pub next_results: String,
    pub query: String,
    pub refresh_url: String,
    pub count: u64,
    pub since_id: u64,
    pub since_id_str: String,
}
