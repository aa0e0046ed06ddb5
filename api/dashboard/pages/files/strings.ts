import type { Locale } from '../../../pay/i18n';

/** The files page's text, Arabic and English (kept beside the page; docs/dashboard.md). */
export const FILES_TEXT: Record<
  Locale,
  {
    title: string;
    intro: string;
    empty: string;
    name: string;
    size: string;
    uploaded: string;
    upload: string;
    chooseFile: string;
    progress: string;
    uploaded_ok: string;
    remove: string;
    removed: string;
    failed: string;
    back: string;
    limitNote: (maxBytes: string) => string;
    filesLink: string;
  }
> = {
  en: {
    title: 'Files',
    intro:
      'Buyers of this product get a download link for each file. Removing a file keeps it for past buyers.',
    empty: 'No files yet.',
    name: 'Name',
    size: 'Size',
    uploaded: 'Uploaded',
    upload: 'Upload',
    chooseFile: 'File to upload',
    progress: 'Upload progress',
    uploaded_ok: 'File uploaded.',
    remove: 'Remove',
    removed: 'File removed.',
    failed: 'The upload failed:',
    back: 'Product',
    limitNote: (max) => `Any type, up to ${max}.`,
    filesLink: 'Files',
  },
  ar: {
    title: 'الملفات',
    intro: 'يحصل مشترو هذا المنتج على رابط تنزيل لكل ملف. حذف ملف يبقيه لمن اشتراه سابقاً.',
    empty: 'لا توجد ملفات بعد.',
    name: 'الاسم',
    size: 'الحجم',
    uploaded: 'تاريخ الرفع',
    upload: 'رفع',
    chooseFile: 'الملف المراد رفعه',
    progress: 'تقدم الرفع',
    uploaded_ok: 'رُفع الملف.',
    remove: 'حذف',
    removed: 'حُذف الملف.',
    failed: 'تعذر الرفع:',
    back: 'المنتج',
    limitNote: (max) => `أي نوع، حتى ${max}.`,
    filesLink: 'الملفات',
  },
};

export function sizeText(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${+(bytes / 1024 ** 3).toFixed(2)} GiB`;
  if (bytes >= 1024 ** 2) return `${+(bytes / 1024 ** 2).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}
