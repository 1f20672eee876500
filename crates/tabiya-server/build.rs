//! Embeds the web page's files (`web/`: the page, its scripts and styles, the vendored
//! board) in the binary: writes a table of them, each with its content type, to OUT_DIR.
//! Tests, the npm manifests and the components' demo page are left out.

use std::fmt::Write;
use std::path::{Path, PathBuf};

fn main() {
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    println!("cargo:rerun-if-changed=web");
    let mut files = Vec::new();
    collect(&web, &web, &mut files);
    files.sort();
    let mut table = String::from("&[\n");
    for (name, path) in &files {
        let ext = name.rsplit('.').next().unwrap_or("");
        let content_type = match ext {
            "html" => "text/html; charset=utf-8",
            "js" | "mjs" => "text/javascript; charset=utf-8",
            "css" => "text/css; charset=utf-8",
            "svg" => "image/svg+xml",
            "png" => "image/png",
            "ico" => "image/x-icon",
            "json" => "application/json",
            "md" | "txt" | "LICENSE" => "text/plain; charset=utf-8",
            _ => "application/octet-stream",
        };
        writeln!(
            table,
            "    ({name:?}, {content_type:?}, include_bytes!({:?}) as &[u8]),",
            path.display()
        )
        .expect("write to a string");
    }
    table.push(']');
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("assets.rs");
    std::fs::write(out, table).expect("write the asset table");
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = path
            .strip_prefix(root)
            .expect("under web/")
            .to_string_lossy()
            .replace('\\', "/");
        if path.is_dir() {
            if name != "tests" && name != "node_modules" {
                collect(root, &path, out);
            }
            continue;
        }
        let skip = name.starts_with("package")
            || name == "demo.html"
            || name.starts_with('.')
            || name.ends_with(".test.mjs");
        if !skip {
            out.push((name, path));
        }
    }
}
