//! Embeds the web page's files (`web/`: the page, its scripts and styles, the vendored
//! board) in the binary: writes a table of them, each with its content type, to OUT_DIR.
//! Tests, the npm manifests and the components' demo page are left out.

use std::fmt::Write;
use std::path::{Path, PathBuf};

#[path = "src/content_type.rs"]
mod content_type;
use content_type::content_type;

fn main() {
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    println!("cargo:rerun-if-changed=web");
    println!("cargo:rerun-if-changed=src/content_type.rs");
    let mut files = Vec::new();
    collect(&web, &web, &mut files);
    files.sort();
    let mut table = String::from("&[\n");
    for (name, path) in &files {
        let content_type = content_type(name);
        let bytes = std::fs::read(path).expect("read a web file");
        // An entity tag: FNV-1a of the bytes.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in &bytes {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
        writeln!(
            table,
            "    ({name:?}, {content_type:?}, \"\\\"{h:016x}\\\"\", include_bytes!({:?}) as &[u8]),",
            path.display()
        )
        .expect("write to a string");
    }
    table.push(']');
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(out.join("assets.rs"), table).expect("write the asset table");
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
