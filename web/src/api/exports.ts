/** The team's exports (issue 32): start one, follow it, download its file. */
import type { Export, ExportList } from '@contract';
import { get, post } from './client';

export const fetchExports = () => get<ExportList>('/v1/exports');

export const startExport = () => post<Export>('/v1/exports', {});

/** The file's address: the session cookie is the credential, checked again on every download. */
export const exportFileUrl = (exportId: number) => `/v1/exports/${exportId}/file`;
