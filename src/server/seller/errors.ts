/** The refusal a wallet that is no vendor's payout wallet gets at sign-in (a DomainError, `forbidden`). */
export const NOT_A_SELLER = "This wallet is not a seller's payout wallet.";
