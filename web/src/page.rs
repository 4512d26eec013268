//! The WASM entry point and the page's JavaScript-facing pieces.

use eframe::wasm_bindgen::{self, JsCast, JsValue, prelude::wasm_bindgen};
use skylight_desktop::SkylightApp;

/// The canvas the app draws on (see `index.html`).
const CANVAS_ID: &str = "skylight";

/// Sets `window[name] = value`.
fn set_global(name: &str, value: &JsValue) {
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &JsValue::from_str(name), value);
    }
}

/// Publishes a finished run: `window.skylightResults` (parsed), and the
/// `skylight-results` event carrying the JSON text.
fn publish(json: &str) {
    match js_sys::JSON::parse(json) {
        Ok(v) => set_global("skylightResults", &v),
        Err(_) => set_global("skylightStatus", &"error: results are not JSON".into()),
    }
    set_global("skylightStatus", &"done".into());
    let init = web_sys::CustomEventInit::new();
    init.set_detail(&JsValue::from_str(json));
    if let (Some(w), Ok(ev)) = (
        web_sys::window(),
        web_sys::CustomEvent::new_with_event_init_dict("skylight-results", &init),
    ) {
        let _ = w.dispatch_event(&ev);
    }
}

/// Offers `text` as a download called `name`.
fn download(name: &str, text: &str) -> Result<String, String> {
    let err = |e: JsValue| format!("{e:?}");
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(if name.ends_with(".csv") {
        "text/csv"
    } else if name.ends_with(".html") {
        "text/html"
    } else {
        "application/json"
    });
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts).map_err(err)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(err)?;
    let a: web_sys::HtmlAnchorElement = doc
        .create_element("a")
        .map_err(err)?
        .dyn_into()
        .map_err(|_| "not an anchor".to_string())?;
    a.set_href(&url);
    a.set_download(name.rsplit('/').next().unwrap_or(name));
    a.click();
    web_sys::Url::revoke_object_url(&url).map_err(err)?;
    Ok(format!("downloaded {name}"))
}

/// The URL's query pairs.
fn url_pairs() -> Vec<(String, String)> {
    let search = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(&search) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in js_sys::try_iter(&params)
        .ok()
        .flatten()
        .into_iter()
        .flatten()
    {
        let Ok(pair) = entry.map(|e| js_sys::Array::from(&e)) else {
            continue;
        };
        if let (Some(k), Some(v)) = (pair.get(0).as_string(), pair.get(1).as_string()) {
            out.push((k, v));
        }
    }
    out
}

/// Starts the app on the page's canvas.
#[wasm_bindgen(start)]
pub async fn start() -> Result<(), JsValue> {
    eframe::WebLogger::init(log::LevelFilter::Info).ok();
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let canvas: web_sys::HtmlCanvasElement = doc
        .get_element_by_id(CANVAS_ID)
        .ok_or("no canvas #skylight on the page")?
        .dyn_into()?;
    let pairs = url_pairs();
    let preset = crate::query::preset(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    set_global(
        "skylightStatus",
        &match &preset {
            Ok(p) if p.autostart => "running".into(),
            Ok(_) => "idle".into(),
            Err(e) => format!("error: {e}").into(),
        },
    );
    eframe::WebRunner::new()
        .start(
            canvas,
            eframe::WebOptions::default(),
            Box::new(move |cc| {
                let ctx = cc.egui_ctx.clone();
                let mut app = SkylightApp::new(move || ctx.request_repaint())
                    .on_finish(Box::new(publish))
                    .on_fail(Box::new(|why: &str| {
                        set_global("skylightStatus", &format!("error: {why}").into());
                    }))
                    .on_export(Box::new(download));
                match preset {
                    Ok(p) => app = app.with_preset(&p),
                    Err(e) => app.report_error(format!("URL parameters: {e}")),
                }
                Ok(Box::new(app))
            }),
        )
        .await
}
