/**
 * Offers bytes as a download: a blob link clicked and released (the same path in the browser and in
 * the desktop window; no navigation, nothing rendered).
 */
export function offerDownload(name: string, bytes: Uint8Array, type: string): void {
  const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its bytes once the click is handled; the URL is released after.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
