/* eslint-disable eslint-comments/disable-enable-pair */
/* eslint-disable eslint-comments/no-unlimited-disable */
/* eslint-disable */
import type * as AdminTypes from './admin.types.js';

export type TagGuardMarkOrderHijackedMutationVariables = AdminTypes.Exact<{
  id: AdminTypes.Scalars['ID']['input'];
  tags: Array<AdminTypes.Scalars['String']['input']> | AdminTypes.Scalars['String']['input'];
  metafields: Array<AdminTypes.MetafieldsSetInput> | AdminTypes.MetafieldsSetInput;
}>;


export type TagGuardMarkOrderHijackedMutation = { tagsAdd?: AdminTypes.Maybe<{ node?: AdminTypes.Maybe<Pick<AdminTypes.AbandonedCheckout, 'id'> | Pick<AdminTypes.AbandonedCheckoutLineItem, 'id'> | Pick<AdminTypes.Abandonment, 'id'> | Pick<AdminTypes.AddAllProductsOperation, 'id'> | Pick<AdminTypes.AdditionalFee, 'id'> | Pick<AdminTypes.AnalyticsAnnotation, 'id'> | Pick<AdminTypes.AnalyticsTarget, 'id'> | Pick<AdminTypes.App, 'id'> | Pick<AdminTypes.AppCatalog, 'id'> | Pick<AdminTypes.AppCredit, 'id'> | Pick<AdminTypes.AppInstallation, 'id'> | Pick<AdminTypes.AppPurchaseOneTime, 'id'> | Pick<AdminTypes.AppRevenueAttributionRecord, 'id'> | Pick<AdminTypes.AppSubscription, 'id'> | Pick<AdminTypes.AppUsageRecord, 'id'> | Pick<AdminTypes.Article, 'id'> | Pick<AdminTypes.BasicEvent, 'id'> | Pick<AdminTypes.Blog, 'id'> | Pick<AdminTypes.BulkOperation, 'id'> | Pick<AdminTypes.BusinessEntity, 'id'> | Pick<AdminTypes.CalculatedOrder, 'id'> | Pick<AdminTypes.CartTransform, 'id'> | Pick<AdminTypes.CashDrawer, 'id'> | Pick<AdminTypes.CashManagementCustomReasonCode, 'id'> | Pick<AdminTypes.CashManagementDefaultReasonCode, 'id'> | Pick<AdminTypes.CashManagementSystemReasonCode, 'id'> | Pick<AdminTypes.CashTrackingAdjustment, 'id'> | Pick<AdminTypes.CashTrackingSession, 'id'> | Pick<AdminTypes.CatalogCsvOperation, 'id'> | Pick<AdminTypes.Channel, 'id'> | Pick<AdminTypes.ChannelDefinition, 'id'> | Pick<AdminTypes.ChannelInformation, 'id'> | Pick<AdminTypes.CheckoutAndAccountsConfiguration, 'id'> | Pick<AdminTypes.CheckoutAndAccountsConfigurationOverride, 'id'> | Pick<AdminTypes.CheckoutProfile, 'id'> | Pick<AdminTypes.Collection, 'id'> | Pick<AdminTypes.CollectionConditionsSource, 'id'> | Pick<AdminTypes.CollectionSubCollectionsSource, 'id'> | Pick<AdminTypes.Comment, 'id'> | Pick<AdminTypes.CommentEvent, 'id'> | Pick<AdminTypes.Company, 'id'> | Pick<AdminTypes.CompanyAddress, 'id'> | Pick<AdminTypes.CompanyContact, 'id'> | Pick<AdminTypes.CompanyContactRole, 'id'> | Pick<AdminTypes.CompanyContactRoleAssignment, 'id'> | Pick<AdminTypes.CompanyLocation, 'id'> | Pick<AdminTypes.CompanyLocationCatalog, 'id'> | Pick<AdminTypes.CompanyLocationStaffMemberAssignment, 'id'> | Pick<AdminTypes.ConsentPolicy, 'id'> | Pick<AdminTypes.CurrencyExchangeAdjustment, 'id'> | Pick<AdminTypes.Customer, 'id'> | Pick<AdminTypes.CustomerAccountAppExtensionPage, 'id'> | Pick<AdminTypes.CustomerAccountNativePage, 'id'> | Pick<AdminTypes.CustomerPaymentMethod, 'id'> | Pick<AdminTypes.CustomerSegmentMembersQuery, 'id'> | Pick<AdminTypes.CustomerVisit, 'id'> | Pick<AdminTypes.DeliveryCarrierService, 'id'> | Pick<AdminTypes.DeliveryCondition, 'id'> | Pick<AdminTypes.DeliveryCountry, 'id'> | Pick<AdminTypes.DeliveryCustomization, 'id'> | Pick<AdminTypes.DeliveryLocationGroup, 'id'> | Pick<AdminTypes.DeliveryMethod, 'id'> | Pick<AdminTypes.DeliveryMethodDefinition, 'id'> | Pick<AdminTypes.DeliveryParticipant, 'id'> | Pick<AdminTypes.DeliveryProfile, 'id'> | Pick<AdminTypes.DeliveryProfileItem, 'id'> | Pick<AdminTypes.DeliveryPromiseParticipant, 'id'> | Pick<AdminTypes.DeliveryPromiseProvider, 'id'> | Pick<AdminTypes.DeliveryProvince, 'id'> | Pick<AdminTypes.DeliveryRateDefinition, 'id'> | Pick<AdminTypes.DeliveryZone, 'id'> | Pick<AdminTypes.DiscountAutomaticBxgy, 'id'> | Pick<AdminTypes.DiscountAutomaticNode, 'id'> | Pick<AdminTypes.DiscountCodeNode, 'id'> | Pick<AdminTypes.DiscountNode, 'id'> | Pick<AdminTypes.DiscountRedeemCodeBulkCreation, 'id'> | Pick<AdminTypes.Domain, 'id'> | Pick<AdminTypes.DraftOrder, 'id'> | Pick<AdminTypes.DraftOrderLineItem, 'id'> | Pick<AdminTypes.DraftOrderTag, 'id'> | Pick<AdminTypes.Duty, 'id'> | Pick<AdminTypes.ExchangeLineItem, 'id'> | Pick<AdminTypes.ExternalVideo, 'id'> | Pick<AdminTypes.Fulfillment, 'id'> | Pick<AdminTypes.FulfillmentConstraintRule, 'id'> | Pick<AdminTypes.FulfillmentEvent, 'id'> | Pick<AdminTypes.FulfillmentHold, 'id'> | Pick<AdminTypes.FulfillmentLineItem, 'id'> | Pick<AdminTypes.FulfillmentOrder, 'id'> | Pick<AdminTypes.FulfillmentOrderDestination, 'id'> | Pick<AdminTypes.FulfillmentOrderLineItem, 'id'> | Pick<AdminTypes.FulfillmentOrderMerchantRequest, 'id'> | Pick<AdminTypes.GenericFile, 'id'> | Pick<AdminTypes.GiftCard, 'id'> | Pick<AdminTypes.GiftCardCashOutTransaction, 'id'> | Pick<AdminTypes.GiftCardCreditTransaction, 'id'> | Pick<AdminTypes.GiftCardDebitTransaction, 'id'> | Pick<AdminTypes.IdentityProviderSubject, 'id'> | Pick<AdminTypes.InventoryAdjustmentGroup, 'id'> | Pick<AdminTypes.InventoryItem, 'id'> | Pick<AdminTypes.InventoryItemMeasurement, 'id'> | Pick<AdminTypes.InventoryLevel, 'id'> | Pick<AdminTypes.InventoryQuantity, 'id'> | Pick<AdminTypes.InventoryShipment, 'id'> | Pick<AdminTypes.InventoryShipmentLineItem, 'id'> | Pick<AdminTypes.InventoryTransfer, 'id'> | Pick<AdminTypes.InventoryTransferLineItem, 'id'> | Pick<AdminTypes.LineItem, 'id'> | Pick<AdminTypes.LineItemGroup, 'id'> | Pick<AdminTypes.Location, 'id'> | Pick<AdminTypes.MailingAddress, 'id'> | Pick<AdminTypes.Market, 'id'> | Pick<AdminTypes.MarketCatalog, 'id'> | Pick<AdminTypes.MarketRegionCountry, 'id'> | Pick<AdminTypes.MarketRegionSubdivision, 'id'> | Pick<AdminTypes.MarketWebPresence, 'id'> | Pick<AdminTypes.MarketingActivity, 'id'> | Pick<AdminTypes.MarketingEvent, 'id'> | Pick<AdminTypes.MediaImage, 'id'> | Pick<AdminTypes.Menu, 'id'> | Pick<AdminTypes.Metafield, 'id'> | Pick<AdminTypes.MetafieldDefinition, 'id'> | Pick<AdminTypes.Metaobject, 'id'> | Pick<AdminTypes.MetaobjectDefinition, 'id'> | Pick<AdminTypes.Model3d, 'id'> | Pick<AdminTypes.OnlineStoreTheme, 'id'> | Pick<AdminTypes.Order, 'id'> | Pick<AdminTypes.OrderAdjustment, 'id'> | Pick<AdminTypes.OrderAttributionDefinition, 'id'> | Pick<AdminTypes.OrderCancelJobResult, 'id'> | Pick<AdminTypes.OrderCreateMandatePaymentJobResult, 'id'> | Pick<AdminTypes.OrderDisputeSummary, 'id'> | Pick<AdminTypes.OrderEditSession, 'id'> | Pick<AdminTypes.OrderTransaction, 'id'> | Pick<AdminTypes.Page, 'id'> | Pick<AdminTypes.PaymentCustomization, 'id'> | Pick<AdminTypes.PaymentMandate, 'id'> | Pick<AdminTypes.PaymentSchedule, 'id'> | Pick<AdminTypes.PaymentTerms, 'id'> | Pick<AdminTypes.PaymentTermsTemplate, 'id'> | Pick<AdminTypes.PointOfSaleDevice, 'id'> | Pick<AdminTypes.PointOfSaleDevicePaymentSession, 'id'> | Pick<AdminTypes.PriceList, 'id'> | Pick<AdminTypes.Product, 'id'> | Pick<AdminTypes.ProductBundleOperation, 'id'> | Pick<AdminTypes.ProductDeleteOperation, 'id'> | Pick<AdminTypes.ProductDuplicateOperation, 'id'> | Pick<AdminTypes.ProductFeed, 'id'> | Pick<AdminTypes.ProductOption, 'id'> | Pick<AdminTypes.ProductOptionValue, 'id'> | Pick<AdminTypes.ProductSetOperation, 'id'> | Pick<AdminTypes.ProductTaxonomyNode, 'id'> | Pick<AdminTypes.ProductVariant, 'id'> | Pick<AdminTypes.ProductVariantComponent, 'id'> | Pick<AdminTypes.Publication, 'id'> | Pick<AdminTypes.PublicationResourceOperation, 'id'> | Pick<AdminTypes.QuantityPriceBreak, 'id'> | Pick<AdminTypes.Refund, 'id'> | Pick<AdminTypes.RefundShippingLine, 'id'> | Pick<AdminTypes.Return, 'id'> | Pick<AdminTypes.ReturnLineItem, 'id'> | Pick<AdminTypes.ReturnReasonDefinition, 'id'> | Pick<AdminTypes.ReturnableFulfillment, 'id'> | Pick<AdminTypes.ReverseDelivery, 'id'> | Pick<AdminTypes.ReverseDeliveryLineItem, 'id'> | Pick<AdminTypes.ReverseFulfillmentOrder, 'id'> | Pick<AdminTypes.ReverseFulfillmentOrderDisposition, 'id'> | Pick<AdminTypes.ReverseFulfillmentOrderLineItem, 'id'> | Pick<AdminTypes.SaleAdditionalFee, 'id'> | Pick<AdminTypes.SavedSearch, 'id'> | Pick<AdminTypes.ScriptTag, 'id'> | Pick<AdminTypes.Segment, 'id'> | Pick<AdminTypes.SellingPlan, 'id'> | Pick<AdminTypes.SellingPlanGroup, 'id'> | Pick<AdminTypes.ServerPixel, 'id'> | Pick<AdminTypes.ShippingLabel, 'id'> | Pick<AdminTypes.ShippingLabelPurchaseResult, 'id'> | Pick<AdminTypes.Shop, 'id'> | Pick<AdminTypes.ShopAddress, 'id'> | Pick<AdminTypes.ShopPolicy, 'id'> | Pick<AdminTypes.ShopifyPaymentsAccount, 'id'> | Pick<AdminTypes.ShopifyPaymentsBalanceTransaction, 'id'> | Pick<AdminTypes.ShopifyPaymentsBankAccount, 'id'> | Pick<AdminTypes.ShopifyPaymentsDispute, 'id'> | Pick<AdminTypes.ShopifyPaymentsDisputeEvidence, 'id'> | Pick<AdminTypes.ShopifyPaymentsDisputeFileUpload, 'id'> | Pick<AdminTypes.ShopifyPaymentsDisputeFulfillment, 'id'> | Pick<AdminTypes.ShopifyPaymentsPayout, 'id'> | Pick<AdminTypes.StaffMember, 'id'> | Pick<AdminTypes.StandardMetafieldDefinitionTemplate, 'id'> | Pick<AdminTypes.StoreCreditAccount, 'id'> | Pick<AdminTypes.StoreCreditAccountCreditTransaction, 'id'> | Pick<AdminTypes.StoreCreditAccountDebitRevertTransaction, 'id'> | Pick<AdminTypes.StoreCreditAccountDebitTransaction, 'id'> | Pick<AdminTypes.StorefrontAccessToken, 'id'> | Pick<AdminTypes.SubscriptionBillingAttempt, 'id'> | Pick<AdminTypes.SubscriptionContract, 'id'> | Pick<AdminTypes.SubscriptionDraft, 'id'> | Pick<AdminTypes.TaxonomyAttribute, 'id'> | Pick<AdminTypes.TaxonomyCategory, 'id'> | Pick<AdminTypes.TaxonomyChoiceListAttribute, 'id'> | Pick<AdminTypes.TaxonomyMeasurementAttribute, 'id'> | Pick<AdminTypes.TaxonomyValue, 'id'> | Pick<AdminTypes.TenderTransaction, 'id'> | Pick<AdminTypes.TransactionFee, 'id'> | Pick<AdminTypes.UnverifiedReturnLineItem, 'id'> | Pick<AdminTypes.UrlRedirect, 'id'> | Pick<AdminTypes.UrlRedirectImport, 'id'> | Pick<AdminTypes.Validation, 'id'> | Pick<AdminTypes.Video, 'id'> | Pick<AdminTypes.WebPixel, 'id'> | Pick<AdminTypes.WebhookSubscription, 'id'>>, userErrors: Array<Pick<AdminTypes.UserError, 'field' | 'message'>> }>, metafieldsSet?: AdminTypes.Maybe<{ metafields?: AdminTypes.Maybe<Array<Pick<AdminTypes.Metafield, 'id' | 'namespace' | 'key'>>>, userErrors: Array<Pick<AdminTypes.MetafieldsSetUserError, 'field' | 'message' | 'code'>> }> };

export type TagGuardCurrentAppInstallationQueryVariables = AdminTypes.Exact<{ [key: string]: never; }>;


export type TagGuardCurrentAppInstallationQuery = { currentAppInstallation: Pick<AdminTypes.AppInstallation, 'id'> };

export type TagGuardMetafieldsSetMutationVariables = AdminTypes.Exact<{
  metafields: Array<AdminTypes.MetafieldsSetInput> | AdminTypes.MetafieldsSetInput;
}>;


export type TagGuardMetafieldsSetMutation = { metafieldsSet?: AdminTypes.Maybe<{ metafields?: AdminTypes.Maybe<Array<Pick<AdminTypes.Metafield, 'id' | 'namespace' | 'key'>>>, userErrors: Array<Pick<AdminTypes.MetafieldsSetUserError, 'field' | 'message' | 'code'>> }> };

export type TagGuardEvidenceDefinitionCreateMutationVariables = AdminTypes.Exact<{
  definition: AdminTypes.MetafieldDefinitionInput;
}>;


export type TagGuardEvidenceDefinitionCreateMutation = { metafieldDefinitionCreate?: AdminTypes.Maybe<{ createdDefinition?: AdminTypes.Maybe<Pick<AdminTypes.MetafieldDefinition, 'id' | 'namespace' | 'key'>>, userErrors: Array<Pick<AdminTypes.MetafieldDefinitionCreateUserError, 'field' | 'message' | 'code'>> }> };

export type TagGuardOrderStateQueryVariables = AdminTypes.Exact<{
  id: AdminTypes.Scalars['ID']['input'];
}>;


export type TagGuardOrderStateQuery = { order?: AdminTypes.Maybe<(
    Pick<AdminTypes.Order, 'id' | 'name' | 'tags' | 'discountCodes'>
    & { evidence?: AdminTypes.Maybe<Pick<AdminTypes.Metafield, 'id' | 'namespace' | 'key' | 'type' | 'value'>> }
  )> };

export type TagGuardCodeDiscountByCodeQueryVariables = AdminTypes.Exact<{
  code: AdminTypes.Scalars['String']['input'];
}>;


export type TagGuardCodeDiscountByCodeQuery = { codeDiscountNodeByCode?: AdminTypes.Maybe<(
    Pick<AdminTypes.DiscountCodeNode, 'id'>
    & { codeDiscount: (
      { __typename: 'DiscountCodeApp' }
      & Pick<AdminTypes.DiscountCodeApp, 'title' | 'status'>
    ) | (
      { __typename: 'DiscountCodeBasic' }
      & Pick<AdminTypes.DiscountCodeBasic, 'title' | 'status'>
    ) | (
      { __typename: 'DiscountCodeBxgy' }
      & Pick<AdminTypes.DiscountCodeBxgy, 'title' | 'status'>
    ) | (
      { __typename: 'DiscountCodeFreeShipping' }
      & Pick<AdminTypes.DiscountCodeFreeShipping, 'title' | 'status'>
    ) }
  )> };

export type TagGuardDiscountCodeDeactivateMutationVariables = AdminTypes.Exact<{
  id: AdminTypes.Scalars['ID']['input'];
}>;


export type TagGuardDiscountCodeDeactivateMutation = { discountCodeDeactivate?: AdminTypes.Maybe<{ codeDiscountNode?: AdminTypes.Maybe<(
      Pick<AdminTypes.DiscountCodeNode, 'id'>
      & { codeDiscount: (
        { __typename: 'DiscountCodeApp' }
        & Pick<AdminTypes.DiscountCodeApp, 'status'>
      ) | (
        { __typename: 'DiscountCodeBasic' }
        & Pick<AdminTypes.DiscountCodeBasic, 'status'>
      ) | (
        { __typename: 'DiscountCodeBxgy' }
        & Pick<AdminTypes.DiscountCodeBxgy, 'status'>
      ) | (
        { __typename: 'DiscountCodeFreeShipping' }
        & Pick<AdminTypes.DiscountCodeFreeShipping, 'status'>
      ) }
    )>, userErrors: Array<Pick<AdminTypes.DiscountUserError, 'field' | 'message' | 'code'>> }> };

export type TagGuardWebPixelQueryVariables = AdminTypes.Exact<{ [key: string]: never; }>;


export type TagGuardWebPixelQuery = { webPixel?: AdminTypes.Maybe<Pick<AdminTypes.WebPixel, 'id' | 'settings'>> };

export type TagGuardWebPixelCreateMutationVariables = AdminTypes.Exact<{
  webPixel: AdminTypes.WebPixelInput;
}>;


export type TagGuardWebPixelCreateMutation = { webPixelCreate?: AdminTypes.Maybe<{ webPixel?: AdminTypes.Maybe<Pick<AdminTypes.WebPixel, 'id' | 'settings'>>, userErrors: Array<Pick<AdminTypes.ErrorsWebPixelUserError, 'field' | 'message' | 'code'>> }> };

export type TagGuardWebPixelUpdateMutationVariables = AdminTypes.Exact<{
  id: AdminTypes.Scalars['ID']['input'];
  webPixel: AdminTypes.WebPixelInput;
}>;


export type TagGuardWebPixelUpdateMutation = { webPixelUpdate?: AdminTypes.Maybe<{ webPixel?: AdminTypes.Maybe<Pick<AdminTypes.WebPixel, 'id' | 'settings'>>, userErrors: Array<Pick<AdminTypes.ErrorsWebPixelUserError, 'field' | 'message' | 'code'>> }> };

export type TagGuardReconcileOrdersQueryVariables = AdminTypes.Exact<{
  query: AdminTypes.Scalars['String']['input'];
  first: AdminTypes.Scalars['Int']['input'];
  after?: AdminTypes.InputMaybe<AdminTypes.Scalars['String']['input']>;
}>;


export type TagGuardReconcileOrdersQuery = { orders: { nodes: Array<(
      Pick<AdminTypes.Order, 'id' | 'legacyResourceId' | 'updatedAt' | 'cancelledAt' | 'edited'>
      & { refunds: Array<Pick<AdminTypes.Refund, 'id' | 'legacyResourceId'>> }
    )>, pageInfo: Pick<AdminTypes.PageInfo, 'hasNextPage' | 'endCursor'> } };

export type TagGuardReconcileOrderQueryVariables = AdminTypes.Exact<{
  id: AdminTypes.Scalars['ID']['input'];
  linesAfter?: AdminTypes.InputMaybe<AdminTypes.Scalars['String']['input']>;
}>;


export type TagGuardReconcileOrderQuery = { order?: AdminTypes.Maybe<(
    Pick<AdminTypes.Order, 'id' | 'legacyResourceId' | 'name' | 'createdAt' | 'currencyCode' | 'cartToken' | 'checkoutToken'>
    & { subtotalPriceSet?: AdminTypes.Maybe<{ shopMoney: Pick<AdminTypes.MoneyV2, 'amount' | 'currencyCode'> }>, totalPriceSet: { shopMoney: Pick<AdminTypes.MoneyV2, 'amount' | 'currencyCode'> }, customAttributes: Array<Pick<AdminTypes.Attribute, 'key' | 'value'>>, customerJourneySummary?: AdminTypes.Maybe<{ lastVisit?: AdminTypes.Maybe<Pick<AdminTypes.CustomerVisit, 'landingPage'>> }>, totalDiscountsSet?: AdminTypes.Maybe<{ shopMoney: Pick<AdminTypes.MoneyV2, 'amount'> }>, discountApplications: { nodes: Array<(
        Pick<AdminTypes.AutomaticDiscountApplication, 'targetType'>
        & { value: { __typename: 'MoneyV2' | 'PricingPercentageValue' } }
      ) | (
        Pick<AdminTypes.DiscountCodeApplication, 'code' | 'targetType'>
        & { value: { __typename: 'MoneyV2' | 'PricingPercentageValue' } }
      ) | (
        Pick<AdminTypes.ManualDiscountApplication, 'targetType'>
        & { value: { __typename: 'MoneyV2' | 'PricingPercentageValue' } }
      ) | (
        Pick<AdminTypes.ScriptDiscountApplication, 'targetType'>
        & { value: { __typename: 'MoneyV2' | 'PricingPercentageValue' } }
      )> }, lineItems: { nodes: Array<{ originalTotalSet: { shopMoney: Pick<AdminTypes.MoneyV2, 'amount'> } }>, pageInfo: Pick<AdminTypes.PageInfo, 'hasNextPage' | 'endCursor'> } }
  )> };

export type TagGuardReconcileRefundQueryVariables = AdminTypes.Exact<{
  id: AdminTypes.Scalars['ID']['input'];
  linesAfter?: AdminTypes.InputMaybe<AdminTypes.Scalars['String']['input']>;
}>;


export type TagGuardReconcileRefundQuery = { refund?: AdminTypes.Maybe<(
    Pick<AdminTypes.Refund, 'id' | 'legacyResourceId'>
    & { order: Pick<AdminTypes.Order, 'id' | 'legacyResourceId'>, refundLineItems: { nodes: Array<(
        Pick<AdminTypes.RefundLineItem, 'quantity'>
        & { subtotalSet: { shopMoney: Pick<AdminTypes.MoneyV2, 'amount' | 'currencyCode'> }, totalTaxSet: { shopMoney: Pick<AdminTypes.MoneyV2, 'amount' | 'currencyCode'> }, lineItem: { originalUnitPriceSet: { shopMoney: Pick<AdminTypes.MoneyV2, 'amount' | 'currencyCode'> } } }
      )>, pageInfo: Pick<AdminTypes.PageInfo, 'hasNextPage' | 'endCursor'> }, refundShippingLines: { nodes: Array<{ subtotalAmountSet: { shopMoney: Pick<AdminTypes.MoneyV2, 'amount' | 'currencyCode'> }, taxAmountSet: { shopMoney: Pick<AdminTypes.MoneyV2, 'amount' | 'currencyCode'> } }> } }
  )> };

export type TagGuardOrderJourneyQueryVariables = AdminTypes.Exact<{
  id: AdminTypes.Scalars['ID']['input'];
}>;


export type TagGuardOrderJourneyQuery = { order?: AdminTypes.Maybe<(
    Pick<AdminTypes.Order, 'id'>
    & { customerJourneySummary?: AdminTypes.Maybe<(
      Pick<AdminTypes.CustomerJourneySummary, 'ready'>
      & { firstVisit?: AdminTypes.Maybe<Pick<AdminTypes.CustomerVisit, 'landingPage' | 'occurredAt'>>, lastVisit?: AdminTypes.Maybe<Pick<AdminTypes.CustomerVisit, 'landingPage' | 'occurredAt'>> }
    )> }
  )> };

export type TagGuardOrderAmountsQueryVariables = AdminTypes.Exact<{
  id: AdminTypes.Scalars['ID']['input'];
}>;


export type TagGuardOrderAmountsQuery = { order?: AdminTypes.Maybe<(
    Pick<AdminTypes.Order, 'id' | 'currencyCode'>
    & { subtotalPriceSet?: AdminTypes.Maybe<{ shopMoney: Pick<AdminTypes.MoneyV2, 'amount' | 'currencyCode'> }>, totalPriceSet: { shopMoney: Pick<AdminTypes.MoneyV2, 'amount' | 'currencyCode'> }, totalDiscountsSet?: AdminTypes.Maybe<{ shopMoney: Pick<AdminTypes.MoneyV2, 'amount'> }> }
  )> };

export type TagGuardShopProfileQueryVariables = AdminTypes.Exact<{ [key: string]: never; }>;


export type TagGuardShopProfileQuery = { shop: Pick<AdminTypes.Shop, 'ianaTimezone' | 'currencyCode'> };

export type TagGuardPayoutCustomerByEmailQueryVariables = AdminTypes.Exact<{
  query: AdminTypes.Scalars['String']['input'];
}>;


export type TagGuardPayoutCustomerByEmailQuery = { customers: { nodes: Array<Pick<AdminTypes.Customer, 'id' | 'email'>> } };

export type TagGuardPayoutCustomerCreateMutationVariables = AdminTypes.Exact<{
  input: AdminTypes.CustomerInput;
}>;


export type TagGuardPayoutCustomerCreateMutation = { customerCreate?: AdminTypes.Maybe<{ customer?: AdminTypes.Maybe<Pick<AdminTypes.Customer, 'id'>>, userErrors: Array<Pick<AdminTypes.UserError, 'field' | 'message'>> }> };

export type TagGuardPayoutStoreCreditTransactionsQueryVariables = AdminTypes.Exact<{
  customerId: AdminTypes.Scalars['ID']['input'];
  currency: AdminTypes.Scalars['String']['input'];
}>;


export type TagGuardPayoutStoreCreditTransactionsQuery = { customer?: AdminTypes.Maybe<(
    Pick<AdminTypes.Customer, 'id'>
    & { storeCreditAccounts: { nodes: Array<(
        Pick<AdminTypes.StoreCreditAccount, 'id'>
        & { transactions: { nodes: Array<(
            { __typename: 'StoreCreditAccountCreditTransaction' }
            & Pick<AdminTypes.StoreCreditAccountCreditTransaction, 'id' | 'event' | 'createdAt'>
            & { amount: Pick<AdminTypes.MoneyV2, 'amount' | 'currencyCode'> }
          ) | (
            { __typename: 'StoreCreditAccountDebitRevertTransaction' }
            & Pick<AdminTypes.StoreCreditAccountDebitRevertTransaction, 'id' | 'createdAt'>
            & { amount: Pick<AdminTypes.MoneyV2, 'amount' | 'currencyCode'> }
          ) | (
            { __typename: 'StoreCreditAccountDebitTransaction' }
            & Pick<AdminTypes.StoreCreditAccountDebitTransaction, 'id' | 'createdAt'>
            & { amount: Pick<AdminTypes.MoneyV2, 'amount' | 'currencyCode'> }
          ) | (
            { __typename: 'StoreCreditAccountExpirationTransaction' }
            & Pick<AdminTypes.StoreCreditAccountExpirationTransaction, 'createdAt'>
            & { amount: Pick<AdminTypes.MoneyV2, 'amount' | 'currencyCode'> }
          )> } }
      )> } }
  )> };

export type TagGuardPayoutStoreCreditMutationVariables = AdminTypes.Exact<{
  customerId: AdminTypes.Scalars['ID']['input'];
  creditInput: AdminTypes.StoreCreditAccountCreditInput;
}>;


export type TagGuardPayoutStoreCreditMutation = { storeCreditAccountCredit?: AdminTypes.Maybe<{ storeCreditAccountTransaction?: AdminTypes.Maybe<(
      Pick<AdminTypes.StoreCreditAccountCreditTransaction, 'id'>
      & { amount: Pick<AdminTypes.MoneyV2, 'amount' | 'currencyCode'> }
    )>, userErrors: Array<Pick<AdminTypes.StoreCreditAccountCreditUserError, 'field' | 'message' | 'code'>> }> };

export type TagGuardPayoutGiftCardCreateMutationVariables = AdminTypes.Exact<{
  input: AdminTypes.GiftCardCreateInput;
}>;


export type TagGuardPayoutGiftCardCreateMutation = { giftCardCreate?: AdminTypes.Maybe<{ giftCard?: AdminTypes.Maybe<(
      Pick<AdminTypes.GiftCard, 'id' | 'note'>
      & { initialValue: Pick<AdminTypes.MoneyV2, 'amount' | 'currencyCode'> }
    )>, userErrors: Array<Pick<AdminTypes.GiftCardUserError, 'field' | 'message' | 'code'>> }> };

export type TagGuardPayoutGiftCardsOfQueryVariables = AdminTypes.Exact<{
  query: AdminTypes.Scalars['String']['input'];
}>;


export type TagGuardPayoutGiftCardsOfQuery = { giftCards: { nodes: Array<(
      Pick<AdminTypes.GiftCard, 'id' | 'note'>
      & { initialValue: Pick<AdminTypes.MoneyV2, 'amount' | 'currencyCode'> }
    )> } };

interface GeneratedQueryTypes {
  "#graphql\n  query TagGuardCurrentAppInstallation {\n    currentAppInstallation { id }\n  }\n": {return: TagGuardCurrentAppInstallationQuery, variables: TagGuardCurrentAppInstallationQueryVariables},
  "#graphql\n  query TagGuardOrderState($id: ID!) {\n    order(id: $id) {\n      id\n      name\n      tags\n      discountCodes\n      evidence: metafield(namespace: \"$app:tag_guard\", key: \"hijack_evidence\") {\n        id\n        namespace\n        key\n        type\n        value\n      }\n    }\n  }\n": {return: TagGuardOrderStateQuery, variables: TagGuardOrderStateQueryVariables},
  "#graphql\n  query TagGuardCodeDiscountByCode($code: String!) {\n    codeDiscountNodeByCode(code: $code) {\n      id\n      codeDiscount {\n        __typename\n        ... on DiscountCodeBasic { title status }\n        ... on DiscountCodeBxgy { title status }\n        ... on DiscountCodeFreeShipping { title status }\n        ... on DiscountCodeApp { title status }\n      }\n    }\n  }\n": {return: TagGuardCodeDiscountByCodeQuery, variables: TagGuardCodeDiscountByCodeQueryVariables},
  "#graphql\n  query TagGuardWebPixel {\n    webPixel { id settings }\n  }\n": {return: TagGuardWebPixelQuery, variables: TagGuardWebPixelQueryVariables},
  "#graphql\n  query TagGuardReconcileOrders($query: String!, $first: Int!, $after: String) {\n    orders(first: $first, after: $after, query: $query, sortKey: UPDATED_AT) {\n      nodes {\n        id\n        legacyResourceId\n        updatedAt\n        cancelledAt\n        refunds(first: 20) { id legacyResourceId }\n        edited\n      }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n": {return: TagGuardReconcileOrdersQuery, variables: TagGuardReconcileOrdersQueryVariables},
  "#graphql\n  query TagGuardReconcileOrder($id: ID!, $linesAfter: String) {\n    order(id: $id) {\n      id\n      legacyResourceId\n      name\n      createdAt\n      currencyCode\n      subtotalPriceSet { shopMoney { amount currencyCode } }\n      totalPriceSet { shopMoney { amount currencyCode } }\n      customAttributes { key value }\n      cartToken\n      checkoutToken\n      customerJourneySummary { lastVisit { landingPage } }\n      totalDiscountsSet { shopMoney { amount } }\n      discountApplications(first: 5) {\n        nodes {\n          targetType\n          value { __typename }\n          ... on DiscountCodeApplication { code }\n        }\n      }\n      lineItems(first: 20, after: $linesAfter) {\n        nodes { originalTotalSet { shopMoney { amount } } }\n        pageInfo { hasNextPage endCursor }\n      }\n    }\n  }\n": {return: TagGuardReconcileOrderQuery, variables: TagGuardReconcileOrderQueryVariables},
  "#graphql\n  query TagGuardReconcileRefund($id: ID!, $linesAfter: String) {\n    refund(id: $id) {\n      id\n      legacyResourceId\n      order { id legacyResourceId }\n      refundLineItems(first: 20, after: $linesAfter) {\n        nodes {\n          quantity\n          subtotalSet { shopMoney { amount currencyCode } }\n          totalTaxSet { shopMoney { amount currencyCode } }\n          lineItem { originalUnitPriceSet { shopMoney { amount currencyCode } } }\n        }\n        pageInfo { hasNextPage endCursor }\n      }\n      refundShippingLines(first: 10) {\n        nodes {\n          subtotalAmountSet { shopMoney { amount currencyCode } }\n          taxAmountSet { shopMoney { amount currencyCode } }\n        }\n      }\n    }\n  }\n": {return: TagGuardReconcileRefundQuery, variables: TagGuardReconcileRefundQueryVariables},
  "#graphql\n  query TagGuardOrderJourney($id: ID!) {\n    order(id: $id) {\n      id\n      customerJourneySummary {\n        ready\n        firstVisit { landingPage occurredAt }\n        lastVisit { landingPage occurredAt }\n      }\n    }\n  }\n": {return: TagGuardOrderJourneyQuery, variables: TagGuardOrderJourneyQueryVariables},
  "#graphql\n  query TagGuardOrderAmounts($id: ID!) {\n    order(id: $id) {\n      id\n      currencyCode\n      subtotalPriceSet { shopMoney { amount currencyCode } }\n      totalPriceSet { shopMoney { amount currencyCode } }\n      totalDiscountsSet { shopMoney { amount } }\n    }\n  }\n": {return: TagGuardOrderAmountsQuery, variables: TagGuardOrderAmountsQueryVariables},
  "#graphql\n  query TagGuardShopProfile {\n    shop { ianaTimezone currencyCode }\n  }\n": {return: TagGuardShopProfileQuery, variables: TagGuardShopProfileQueryVariables},
  "#graphql\n  query TagGuardPayoutCustomerByEmail($query: String!) {\n    customers(first: 2, query: $query) {\n      nodes { id email }\n    }\n  }\n": {return: TagGuardPayoutCustomerByEmailQuery, variables: TagGuardPayoutCustomerByEmailQueryVariables},
  "#graphql\n  query TagGuardPayoutStoreCreditTransactions($customerId: ID!, $currency: String!) {\n    customer(id: $customerId) {\n      id\n      storeCreditAccounts(first: 2, query: $currency) {\n        nodes {\n          id\n          transactions(first: 25, sortKey: CREATED_AT, reverse: true) {\n            nodes {\n              __typename\n              amount { amount currencyCode }\n              createdAt\n              ... on StoreCreditAccountCreditTransaction { id event }\n              ... on StoreCreditAccountDebitTransaction { id }\n              ... on StoreCreditAccountDebitRevertTransaction { id }\n            }\n          }\n        }\n      }\n    }\n  }\n": {return: TagGuardPayoutStoreCreditTransactionsQuery, variables: TagGuardPayoutStoreCreditTransactionsQueryVariables},
  "#graphql\n  query TagGuardPayoutGiftCardsOf($query: String!) {\n    giftCards(first: 50, query: $query, sortKey: CREATED_AT, reverse: true) {\n      nodes { id note initialValue { amount currencyCode } }\n    }\n  }\n": {return: TagGuardPayoutGiftCardsOfQuery, variables: TagGuardPayoutGiftCardsOfQueryVariables},
}

interface GeneratedMutationTypes {
  "#graphql\n  mutation TagGuardMarkOrderHijacked($id: ID!, $tags: [String!]!, $metafields: [MetafieldsSetInput!]!) {\n    tagsAdd(id: $id, tags: $tags) {\n      node { id }\n      userErrors { field message }\n    }\n    metafieldsSet(metafields: $metafields) {\n      metafields { id namespace key }\n      userErrors { field message code }\n    }\n  }\n": {return: TagGuardMarkOrderHijackedMutation, variables: TagGuardMarkOrderHijackedMutationVariables},
  "#graphql\n  mutation TagGuardMetafieldsSet($metafields: [MetafieldsSetInput!]!) {\n    metafieldsSet(metafields: $metafields) {\n      metafields { id namespace key }\n      userErrors { field message code }\n    }\n  }\n": {return: TagGuardMetafieldsSetMutation, variables: TagGuardMetafieldsSetMutationVariables},
  "#graphql\n  mutation TagGuardEvidenceDefinitionCreate($definition: MetafieldDefinitionInput!) {\n    metafieldDefinitionCreate(definition: $definition) {\n      createdDefinition { id namespace key }\n      userErrors { field message code }\n    }\n  }\n": {return: TagGuardEvidenceDefinitionCreateMutation, variables: TagGuardEvidenceDefinitionCreateMutationVariables},
  "#graphql\n  mutation TagGuardDiscountCodeDeactivate($id: ID!) {\n    discountCodeDeactivate(id: $id) {\n      codeDiscountNode {\n        id\n        codeDiscount {\n          __typename\n          ... on DiscountCodeBasic { status }\n          ... on DiscountCodeBxgy { status }\n          ... on DiscountCodeFreeShipping { status }\n          ... on DiscountCodeApp { status }\n        }\n      }\n      userErrors { field message code }\n    }\n  }\n": {return: TagGuardDiscountCodeDeactivateMutation, variables: TagGuardDiscountCodeDeactivateMutationVariables},
  "#graphql\n  mutation TagGuardWebPixelCreate($webPixel: WebPixelInput!) {\n    webPixelCreate(webPixel: $webPixel) {\n      webPixel { id settings }\n      userErrors { field message code }\n    }\n  }\n": {return: TagGuardWebPixelCreateMutation, variables: TagGuardWebPixelCreateMutationVariables},
  "#graphql\n  mutation TagGuardWebPixelUpdate($id: ID!, $webPixel: WebPixelInput!) {\n    webPixelUpdate(id: $id, webPixel: $webPixel) {\n      webPixel { id settings }\n      userErrors { field message code }\n    }\n  }\n": {return: TagGuardWebPixelUpdateMutation, variables: TagGuardWebPixelUpdateMutationVariables},
  "#graphql\n  mutation TagGuardPayoutCustomerCreate($input: CustomerInput!) {\n    customerCreate(input: $input) {\n      customer { id }\n      userErrors { field message }\n    }\n  }\n": {return: TagGuardPayoutCustomerCreateMutation, variables: TagGuardPayoutCustomerCreateMutationVariables},
  "#graphql\n  mutation TagGuardPayoutStoreCredit($customerId: ID!, $creditInput: StoreCreditAccountCreditInput!) {\n    storeCreditAccountCredit(id: $customerId, creditInput: $creditInput) {\n      storeCreditAccountTransaction { id amount { amount currencyCode } }\n      userErrors { field message code }\n    }\n  }\n": {return: TagGuardPayoutStoreCreditMutation, variables: TagGuardPayoutStoreCreditMutationVariables},
  "#graphql\n  mutation TagGuardPayoutGiftCardCreate($input: GiftCardCreateInput!) {\n    giftCardCreate(input: $input) {\n      giftCard { id note initialValue { amount currencyCode } }\n      userErrors { field message code }\n    }\n  }\n": {return: TagGuardPayoutGiftCardCreateMutation, variables: TagGuardPayoutGiftCardCreateMutationVariables},
}
declare module '@shopify/admin-api-client' {
  type InputMaybe<T> = AdminTypes.InputMaybe<T>;
  interface AdminQueries extends GeneratedQueryTypes {}
  interface AdminMutations extends GeneratedMutationTypes {}
}
