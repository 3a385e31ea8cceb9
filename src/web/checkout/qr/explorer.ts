export { explorerTxUrl } from '../../../core/explorer';
