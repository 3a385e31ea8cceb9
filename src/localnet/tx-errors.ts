/** LiteSVM transaction errors → Solana RPC JSON shapes and display messages (as agave prints them). */
import {
  FailedTransactionMetadata,
  InstructionErrorBorshIo,
  InstructionErrorCustom,
  TransactionErrorDuplicateInstruction,
  TransactionErrorInstructionError,
  TransactionErrorInsufficientFundsForRent,
  TransactionErrorProgramExecutionTemporarilyRestricted,
} from 'litesvm/dist/internal.js';

/** The JSON form of a TransactionError as the RPC serialises it. */
export type RpcTransactionError = string | Record<string, unknown>;

// Index = numeric value of LiteSVM's (const enum) TransactionErrorFieldless.
const TX_FIELDLESS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
] as const;

// Index = numeric value of LiteSVM's InstructionErrorFieldless.
const IX_FIELDLESS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
] as const;

const TX_MESSAGES: Record<string, string> = {
  AccountInUse: 'Account in use',
  AccountLoadedTwice: 'Account loaded twice',
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  InvalidAccountForFee: 'This account may not be used to pay transaction fees',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  MissingSignatureForFee: 'Transaction requires a fee but has no signature present',
  SignatureFailure: 'Transaction did not pass signature verification',
  SanitizeFailure: 'Transaction failed to sanitize accounts offsets correctly',
  UnsupportedVersion: 'Transaction version is unsupported',
  MaxLoadedAccountsDataSizeExceeded: 'Transaction exceeded max loaded accounts data size cap',
  InvalidLoadedAccountsDataSizeLimit:
    'LoadedAccountsDataSizeLimit set for transaction must be greater than 0.',
};

const IX_MESSAGES: Record<string, string> = {
  GenericError: 'generic instruction error',
  InvalidArgument: 'invalid program argument',
  InvalidInstructionData: 'invalid instruction data',
  InvalidAccountData: 'invalid account data for instruction',
  AccountDataTooSmall: 'account data too small for instruction',
  InsufficientFunds: 'insufficient funds for instruction',
  IncorrectProgramId: 'incorrect program id for instruction',
  MissingRequiredSignature: 'missing required signature for instruction',
  AccountAlreadyInitialized: 'instruction requires an uninitialized account',
  UninitializedAccount: 'instruction requires an initialized account',
  NotEnoughAccountKeys: 'insufficient account keys for instruction',
  ComputationalBudgetExceeded: 'Computational budget exceeded',
  PrivilegeEscalation: 'Cross-program invocation with unauthorized signer or writable account',
  IllegalOwner: 'Provided owner is not allowed',
  InvalidAccountOwner: 'Invalid account owner',
  ArithmeticOverflow: 'Program arithmetic overflowed',
  InvalidSeeds: 'Provided seeds do not result in a valid address',
};

export interface ConvertedError {
  json: RpcTransactionError;
  message: string;
  /** True when a real cluster would still include the transaction in a block (fee charged, meta.err set). */
  name: string;
}

function instructionError(e: unknown): { json: unknown; message: string } {
  if (e instanceof InstructionErrorCustom) {
    return { json: { Custom: e.code }, message: `custom program error: 0x${e.code.toString(16)}` };
  }
  if (e instanceof InstructionErrorBorshIo) {
    return {
      json: { BorshIoError: e.msg },
      message: `Failed to serialize or deserialize account data: ${e.msg}`,
    };
  }
  if (typeof e === 'number') {
    const name = IX_FIELDLESS[e] ?? 'GenericError';
    return { json: name, message: IX_MESSAGES[name] ?? name };
  }
  return { json: 'GenericError', message: 'generic instruction error' };
}

/** Converts the err() of a LiteSVM FailedTransactionMetadata. */
export function convertError(failed: FailedTransactionMetadata): ConvertedError {
  const e: unknown = failed.err();
  if (typeof e === 'number') {
    const name = TX_FIELDLESS[e] ?? 'SanitizeFailure';
    return { json: name, message: TX_MESSAGES[name] ?? name, name };
  }
  if (e instanceof TransactionErrorInstructionError) {
    const inner = instructionError(e.err());
    return {
      json: { InstructionError: [e.index, inner.json] },
      message: `Error processing Instruction ${e.index}: ${inner.message}`,
      name: 'InstructionError',
    };
  }
  if (e instanceof TransactionErrorDuplicateInstruction) {
    return {
      json: { DuplicateInstruction: e.index },
      message: `Transaction contains a duplicate instruction (${e.index}) that is not allowed`,
      name: 'DuplicateInstruction',
    };
  }
  if (e instanceof TransactionErrorInsufficientFundsForRent) {
    return {
      json: { InsufficientFundsForRent: { account_index: e.accountIndex } },
      message: `Transaction results in an account (${e.accountIndex}) with insufficient funds for rent`,
      name: 'InsufficientFundsForRent',
    };
  }
  if (e instanceof TransactionErrorProgramExecutionTemporarilyRestricted) {
    return {
      json: { ProgramExecutionTemporarilyRestricted: { account_index: e.accountIndex } },
      message: `Execution of the program referenced by account at index ${e.accountIndex} is temporarily restricted.`,
      name: 'ProgramExecutionTemporarilyRestricted',
    };
  }
  return { json: 'SanitizeFailure', message: String(e), name: 'SanitizeFailure' };
}

export function fieldlessError(name: (typeof TX_FIELDLESS)[number]): ConvertedError {
  return { json: name, message: TX_MESSAGES[name] ?? name, name };
}
