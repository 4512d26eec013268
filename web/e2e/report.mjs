// Opens a page written by `skylight report` in headless Chromium (from the
// file, with no server: the page must need nothing else) and checks that
// its charts are drawn: every SVG laid out with a size, each roofline with
// its markers and ceilings, no two texts of a chart over each other, and
// no request leaving the file. Prints one line per chart; exits 1 on a
// failure. Optionally saves a screenshot of the whole page.
//
//   node web/e2e/report.mjs report.html [screenshot.png]
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const [file, shot] = process.argv.slice(2);
if (!file) {
  console.error("usage: node web/e2e/report.mjs report.html [screenshot.png]");
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-background-networking", "--no-first-run"],
});
const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
const outside = [];
page.on("request", (r) => {
  if (!/^(file|data|about):/.test(r.url())) outside.push(r.url());
});
await page.goto(pathToFileURL(resolve(file)).href);

// Per chart: its class, laid-out size, markers, lines, and the pairs of
// texts whose boxes overlap (by more than half a pixel each way).
const charts = await page.evaluate(() =>
  [...document.querySelectorAll("svg")].map((svg) => {
    const box = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll("text")]
      .map((t) => ({ s: t.textContent, b: t.getBoundingClientRect() }))
      .filter((t) => t.b.width > 0 && t.s.trim() !== "");
    const over = [];
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++) {
        const a = texts[i].b, b = texts[j].b;
        const dx = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const dy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (dx > 0.5 && dy > 0.5) over.push(`"${texts[i].s}" / "${texts[j].s}"`);
      }
    }
    return {
      kind: svg.getAttribute("class"),
      width: Math.round(box.width),
      height: Math.round(box.height),
      marks: svg.querySelectorAll(".mark").length,
      lines: svg.querySelectorAll("line, polyline").length,
      texts: texts.length,
      over,
    };
  }),
);
if (shot) await page.screenshot({ path: shot, fullPage: true });
await browser.close();

const failures = [];
if (!charts.some((c) => c.kind === "roofline")) failures.push("no roofline chart");
for (const c of charts) {
  console.log(
    `${c.kind}: ${c.width}x${c.height} px, ${c.marks} markers, ${c.lines} lines, ${c.texts} texts`,
  );
  if (c.width < 200 || c.height < 150) failures.push(`${c.kind} is not laid out`);
  if (c.marks === 0) failures.push(`${c.kind} has no markers`);
  if (c.texts === 0) failures.push(`${c.kind} has no text`);
  if (c.kind === "roofline" && c.lines < 2) failures.push("a roofline without ceilings");
  for (const o of c.over) failures.push(`${c.kind}: text over text: ${o}`);
}
for (const u of outside) failures.push(`the page requested ${u}`);
for (const f of failures) console.error(`FAIL ${f}`);
process.exit(failures.length ? 1 : 0);
