/** Document ingest: documents → overlapping chunks → document_chunk memories. */
export { chunkText } from './chunk';
export { createLocalDocumentFetcher, DocumentFetchError, htmlTitle, htmlToText, type DocumentFetcher, type FetchedDocument } from './fetch';
export {
  createDocument,
  createDocumentHandler,
  deleteDocument,
  documentMemoryIds,
  getDocument,
  type CreateDocumentInput,
  type DocumentDeps,
  type DocumentRow,
  type DocumentSettings,
  type DocumentStatus,
} from './ingest';
