//! The access log (`tabiya serve --access-log`): one line per request on standard error,
//! in the Common Log Format with the time taken appended.

use std::net::SocketAddr;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use axum::extract::{ConnectInfo, Request};
use axum::middleware::Next;
use axum::response::Response;
use tabiya_service::time::civil_from_days;

pub async fn access_log(
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    let start = Instant::now();
    let line = format!(
        "{} {} {:?}",
        request.method(),
        request.uri(),
        request.version()
    );
    let response = next.run(request).await;
    let bytes = response
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("-")
        .to_string();
    eprintln!(
        "{} - - [{}] \"{line}\" {} {bytes} {:.1}ms",
        peer.ip(),
        clf_time(SystemTime::now()),
        response.status().as_u16(),
        start.elapsed().as_secs_f64() * 1e3
    );
    response
}

/// `10/Oct/2000:13:55:36 +0000` (UTC).
fn clf_time(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{d:02}/{}/{y}:{:02}:{:02}:{:02} +0000",
        MONTHS[(m - 1) as usize],
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_by_hand() {
        let t = UNIX_EPOCH + std::time::Duration::from_secs(20_781 * 86_400 + 3_723);
        assert_eq!(clf_time(t), "24/Nov/2026:01:02:03 +0000");
    }
}
