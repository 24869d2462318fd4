export { votePanel, majorityVerdict, TIE_PREFERENCE, type PanelSample, type PanelOptions, type PanelResult, type PanelItem, type PanelMember, type PairwiseKappa, type VoteCounts } from './vote.ts';
export { sampleSeed, sampleItemOrder, panelItemOrders, type SampleOrder } from './item-order.ts';
export { panelItemConfidence, type ItemConfidence, type SampleConfidence } from './confidence.ts';
export { itemInstability, memberKappaAgainstVote, type ItemInstability, type MemberKappa, type VotedGrade } from './summary.ts';
