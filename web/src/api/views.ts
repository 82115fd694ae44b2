/** Saved views: /v1/views (docs/api.md, "Saved views"). */
import { del, get, patch, post } from './client';
import type { CreateViewBody, UpdateViewBody, View } from '@contract';

export const fetchViews = () => get<View[]>('/v1/views');
export const fetchView = (viewId: number) => get<View>(`/v1/views/${viewId}`);
export const createView = (view: CreateViewBody) => post<View>('/v1/views', view);
export const updateView = (viewId: number, change: UpdateViewBody) => patch<View>(`/v1/views/${viewId}`, change);
export const deleteView = (viewId: number) => del<unknown>(`/v1/views/${viewId}`);
