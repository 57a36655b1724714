import { useState } from "react";

/**
 * Downloads a file the app serves (a CSV export). A plain link would be a document request
 * without the session token; fetch goes through App Bridge, which adds it. The file is saved
 * from a blob under the name the server gives it, else `fallbackName`. A component module
 * (.tsx): it runs in the browser only, under the browser's fetch, never the server's.
 */
export function useDownload(fallbackName: string): { downloading: boolean; download(url: string): Promise<void> } {
  const [downloading, setDownloading] = useState(false);
  const download = async (url: string) => {
    setDownloading(true);
    try {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const href = URL.createObjectURL(await response.blob());
      const anchor = document.createElement("a");
      anchor.href = href;
      anchor.download =
        /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "")?.[1] ?? fallbackName;
      anchor.click();
      URL.revokeObjectURL(href);
    } finally {
      setDownloading(false);
    }
  };
  return { downloading, download };
}
