/**
 * The parts of OpenAPI 3.1 this project writes, typed so a misspelt key fails the typecheck rather than
 * silently vanishing from the docs. Schemas are JSON Schema 2020-12 (OpenAPI 3.1's dialect).
 */

export type { JsonType, SchemaObject } from '../../shared/json-schema';
import type { SchemaObject } from '../../shared/json-schema';

export interface Reference {
  $ref: string;
  description?: string;
}

export interface HeaderObject {
  description?: string;
  required?: boolean;
  schema: SchemaObject;
  example?: unknown;
}

export interface MediaTypeObject {
  schema?: SchemaObject;
  example?: unknown;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | Reference>;
  content?: Record<string, MediaTypeObject>;
}

export interface ParameterObject {
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  description?: string;
  required?: boolean;
  schema: SchemaObject;
  example?: unknown;
}

export interface RequestBodyObject {
  description?: string;
  required?: boolean;
  content: Record<string, MediaTypeObject>;
}

export type SecurityRequirement = Record<string, string[]>;

export interface OperationObject {
  tags: string[];
  summary: string;
  description?: string;
  operationId: string;
  parameters?: Array<ParameterObject | Reference>;
  requestBody?: RequestBodyObject | Reference;
  responses: Record<string, ResponseObject | Reference>;
  /** Empty array: no credential at all; absent: the document's default (none is set). */
  security?: SecurityRequirement[];
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type PathItemObject = Partial<Record<HttpMethod, OperationObject>> & {
  summary?: string;
  description?: string;
  parameters?: Array<ParameterObject | Reference>;
};

export interface TagObject {
  name: string;
  description?: string;
}

export type SecuritySchemeObject =
  | { type: 'apiKey'; name: string; in: 'header' | 'query' | 'cookie'; description?: string }
  | { type: 'http'; scheme: 'bearer' | 'basic'; bearerFormat?: string; description?: string };

export interface ComponentsObject {
  schemas: Record<string, SchemaObject>;
  responses: Record<string, ResponseObject>;
  parameters: Record<string, ParameterObject>;
  headers: Record<string, HeaderObject>;
  securitySchemes: Record<string, SecuritySchemeObject>;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: {
    title: string;
    version: string;
    description?: string;
    contact?: { name?: string; url?: string; email?: string };
    license?: { name: string; identifier?: string; url?: string };
  };
  jsonSchemaDialect: string;
  servers: Array<{ url: string; description?: string }>;
  tags: TagObject[];
  paths: Record<string, PathItemObject>;
  /** What the platform sends to merchants' endpoints (api/openapi/webhooks.ts). */
  webhooks: Record<string, PathItemObject>;
  components: ComponentsObject;
}

/**
 * One interface's share of the document: its tag, its paths and any schemas only it uses. Each interface
 * keeps its own fragment file, so a new endpoint is documented next to its siblings.
 */
export interface OpenApiFragment {
  tag: TagObject;
  paths: Record<string, PathItemObject>;
  schemas?: Record<string, SchemaObject>;
}
