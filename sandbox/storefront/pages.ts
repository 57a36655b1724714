import { decimalAmount, PRODUCT_VARIANT } from "./products";
import { standardActionsScript } from "./standard-actions";

// The pages of the stand-in shop (sandbox/storefront/shop.ts): a theme's product and cart pages
// (where the app embed runs, when it is on) and Shopify's checkout and thank-you pages (where no
// theme app embed runs, only web pixels). Plain HTML forms, as a theme without JavaScript has:
// the browser posts them and follows the redirect, so every step is a real navigation.

export interface Line {
  title: string;
  /** Unit price, a decimal string in the shop's currency. */
  price: string;
  quantity: number;
}

export interface PageParts {
  title: string;
  /** content_for_header: the window.Shopify script. */
  header: string;
  /** The app embed's block, or "" (off, or a checkout page). */
  block: string;
  /** The web pixels runtime's configuration and script, or "" when the shop runs no pixel. */
  pixels: string;
  main: string;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

export function page(parts: PageParts): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(parts.title)} – Tag Guard test store</title>
<link rel="icon" href="data:,">
<script>
${parts.header}
</script>
<script type="module">${standardActionsScript()}
</script>
${parts.pixels}
<style>
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: #222; }
header { height: 64px; display: flex; gap: 24px; align-items: center; padding: 0 24px; background: #f4f1ea; }
main { padding: 24px; max-width: 720px; }
.price { font-size: 24px; font-weight: 600; }
button { padding: 12px 20px; font: inherit; }
form { display: inline-block; margin: 0 12px 12px 0; }
</style>
</head>
<body>
<header><strong>Tag Guard test store</strong><a href="/">Home</a><a href="/cart">Cart</a></header>
<main>
${parts.main}
</main>
${parts.block}
</body>
</html>`;
}

/**
 * A product page (the home page shows the one product too): add to cart, or Buy it now. Both
 * forms post the variant's id and a quantity, as a theme's product form does.
 */
export function productMain(): string {
  const fields = `<input type="hidden" name="id" value="${PRODUCT_VARIANT.id}"><input type="hidden" name="quantity" value="1">`;
  return `<h1>${escapeHtml(PRODUCT_VARIANT.productTitle)}</h1>
<p class="price">$${decimalAmount(PRODUCT_VARIANT.price)}</p>
<p>Soft, warm, made to last. A product page standing in for a real theme.</p>
<form method="post" action="/cart/add">${fields}<button id="add-to-cart" type="submit">Add to cart</button></form>
<form method="post" action="/checkouts/buy-now">${fields}<button id="buy-it-now" type="submit">Buy it now</button></form>`;
}

export function cartMain(lines: readonly Line[]): string {
  const rows = lines.map((line) => `<li>${escapeHtml(line.title)} × ${line.quantity} — $${line.price}</li>`).join("");
  return `<h1>Your cart</h1>
${lines.length === 0 ? "<p>Your cart is empty.</p>" : `<ul id="lines">${rows}</ul>`}
<form method="post" action="/cart/clear"><button id="clear-cart" type="submit">Clear cart</button></form>
<form method="post" action="/checkout"><button id="checkout" type="submit"${lines.length === 0 ? " disabled" : ""}>Check out</button></form>`;
}

export function checkoutMain(token: string, subtotal: string, discountCode: string | null): string {
  return `<h1>Checkout</h1>
<p>Subtotal: <span id="subtotal">$${subtotal}</span></p>
${discountCode ? `<p>Discount code: <span id="discount-code">${escapeHtml(discountCode)}</span></p>` : ""}
<form method="post" action="/checkouts/cn/${encodeURIComponent(token)}/pay"><button id="pay-now" type="submit">Pay now</button></form>`;
}

export function thankYouMain(order: { id: string; name: string }): string {
  return `<h1>Thank you!</h1>
<p id="order" data-order-id="${escapeHtml(order.id)}">Order ${escapeHtml(order.name)} is confirmed.</p>`;
}
