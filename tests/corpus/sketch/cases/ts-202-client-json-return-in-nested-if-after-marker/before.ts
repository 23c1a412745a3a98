import { EventEmitter } from 'events';
import type { RequestInit } from 'node-fetch';
import fetch from 'node-fetch';

export interface ClientOptions {
  baseUrl: string;
  token?: string;
  retries?: number;
  timeoutMs?: number;
}

export class HttpError extends Error {
  constructor(public readonly status: number, message: string) {
    super(message);
    this.name = 'HttpError';
  }
}

export function retryDelay(attempt: number, retryAfter?: string | null): number {
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (!Number.isNaN(seconds)) {
      return seconds * 1000;
    }
  }
  return Math.min(1000 * 2 ** attempt, 30_000);
}

export class ApiClient extends EventEmitter {
  private readonly baseUrl: string;
  private readonly token?: string;
  private readonly retries: number;

  constructor(options: ClientOptions) {
    super();
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.token = options.token;
    this.retries = options.retries ?? 2;
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.token) {
      headers.Authorization = `Bearer ${this.token}`;
    }
    return headers;
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const init: RequestInit = { method, headers: this.headers() };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
    }
    let lastError: unknown;
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      try {
        const res = await fetch(`${this.baseUrl}${path}`, init);
        if (!res.ok) {
          throw new HttpError(res.status, await res.text());
        }
        this.emit('response', res.status);
        return (await res.json()) as T;
      } catch (err) {
        lastError = err;
        if (err instanceof HttpError && err.status < 500) {
          throw err;
        }
      }
    }
    throw lastError;
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  async getOrNull<T>(path: string): Promise<T | null> {
    try {
      return await this.get<T>(path);
    } catch (err) {
      if (err instanceof HttpError && err.status === 404) {
        return null;
      }
      throw err;
    }
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }
}

export function createClient(options: ClientOptions): ApiClient {
  return new ApiClient(options);
}
