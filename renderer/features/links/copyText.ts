/**
 * The clipboard, from the sandboxed renderer: `navigator.clipboard.writeText` works in both hosts
 * (a secure context: loopback HTTP and app://). It resolves to a sentence for a status line.
 */
export async function copyText(text: string, what: string): Promise<string> {
  try {
    if (!navigator.clipboard) return `Could not copy ${what}: the clipboard is not available to this page.`;
    await navigator.clipboard.writeText(text);
    return `Copied ${what}.`;
  } catch (e) {
    return `Could not copy ${what}: ${e instanceof Error ? e.message : String(e)}`;
  }
}
