/**
 * The approval page's HTML (runtime/transports/approval-page.ts), in zh-CN or en: the person's
 * preview, Approve and Decline while the record is pending, or how it stands. Every value is
 * escaped; the one script carries the CSP nonce and posts the answer as JSON with the CSRF token.
 */
import type { ApprovalStatus } from "./record";

type Locale = "zh-CN" | "en";

const TEXT = {
  en: {
    title: "Approve a change",
    intro: "Your assistant wants to make this change:",
    approve: "Approve",
    decline: "Decline",
    pending: "Waiting for your answer. Nothing is written until you approve.",
    next: "After you answer, the assistant continues: on Approve it makes exactly this change once; on Decline nothing is written.",
    approved: "Already answered: approved. The change is made when the assistant continues.",
    declined: "Already answered: declined. Nothing is written.",
    cancelled: "Already answered: cancelled. Nothing is written.",
    expired: "This approval has expired. Nothing is written; the assistant has to ask again.",
    expires: "Expires",
    failed: "Could not send your answer. Reload the page and try again.",
    401: "Open the link your app gave you to sign in.",
    403: "This sign-in may not answer this approval.",
    404: "No such approval: it was never asked here, or it was answered long ago.",
  },
  "zh-CN": {
    title: "确认一项修改",
    intro: "你的助手想做以下修改：",
    approve: "批准",
    decline: "拒绝",
    pending: "等待你的回答。批准之前不会写入任何内容。",
    next: "回答后助手会继续：批准则恰好执行这一项修改一次；拒绝则不写入任何内容。",
    approved: "已回答：已批准。助手继续时会执行这项修改。",
    declined: "已回答：已拒绝。不会写入任何内容。",
    cancelled: "已回答：已取消。不会写入任何内容。",
    expired: "此确认已过期。不会写入任何内容；助手需要重新询问。",
    expires: "过期时间",
    failed: "未能发送你的回答。请刷新页面后重试。",
    401: "请打开应用给你的链接登录。",
    403: "当前登录无权回答此确认。",
    404: "没有这项确认：它不是在这里发起的，或早已回答。",
  },
} as const;

export interface PageView {
  id: string;
  summary: string;
  status: ApprovalStatus;
  expiresAt: string;
  /** The CSRF token of the viewer's cookie for this record ("" without a cookie: no buttons work). */
  csrf: string;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** The status line of each state, by its data-status (the script swaps it after an answer). */
function statusLines(t: (typeof TEXT)[Locale]): string {
  return (["pending", "approved", "declined", "cancelled", "expired"] as const)
    .map((s) => `<p class="status" data-status="${s}" hidden>${escapeHtml(t[s])}</p>`)
    .join("");
}

const SCRIPT = `
const body = document.body;
const show = (status) => {
  for (const p of document.querySelectorAll(".status")) p.hidden = p.dataset.status !== status;
  document.getElementById("buttons").hidden = status !== "pending";
  body.dataset.status = status;
};
show(body.dataset.initial);
async function send(answer) {
  for (const b of document.querySelectorAll("button")) b.disabled = true;
  try {
    const r = await fetch("/v1/approvals/" + body.dataset.id, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", "x-mnote-csrf": body.dataset.csrf },
      body: JSON.stringify({ answer }),
    });
    const j = await r.json();
    if (!j.status) throw new Error(j.error || "no status");
    show(j.status);
  } catch (e) {
    document.getElementById("failed").hidden = false;
  }
}
document.getElementById("approve").addEventListener("click", () => send("approve"));
document.getElementById("decline").addEventListener("click", () => send("decline"));
`;

const STYLE =
  "body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}" +
  "pre{white-space:pre-wrap;background:#f4f4f4;padding:1rem;border-radius:6px}button{font-size:1rem;margin-right:1rem;padding:.5rem 1.5rem}";

export function pageHtml(input: { locale: Locale; nonce: string; refusal?: number; view?: PageView }): string {
  const t = TEXT[input.locale];
  const head = `<!doctype html><html lang="${input.locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(t.title)}</title><style nonce="${input.nonce}">${STYLE}</style></head>`;
  const view = input.view;
  if (!view) {
    const refusal = (input.refusal ?? 404) as 401 | 403 | 404;
    return `${head}<body><h1>${escapeHtml(t.title)}</h1><p id="refused">${escapeHtml(t[refusal] ?? t[404])}</p></body></html>`;
  }
  const data = `data-id="${escapeHtml(view.id)}" data-csrf="${escapeHtml(view.csrf)}" data-initial="${escapeHtml(view.status)}" data-status="${escapeHtml(view.status)}"`;
  return (
    `${head}<body ${data}><h1>${escapeHtml(t.title)}</h1><p>${escapeHtml(t.intro)}</p>` +
    `<pre id="summary">${escapeHtml(view.summary)}</pre>` +
    `<p>${escapeHtml(t.expires)}: <time>${escapeHtml(view.expiresAt)}</time></p>${statusLines(t)}` +
    `<div id="buttons" hidden><button id="approve">${escapeHtml(t.approve)}</button><button id="decline">${escapeHtml(t.decline)}</button><p>${escapeHtml(t.next)}</p></div>` +
    `<p id="failed" hidden>${escapeHtml(t.failed)}</p>` +
    `<script nonce="${input.nonce}">${SCRIPT}</script></body></html>`
  );
}
