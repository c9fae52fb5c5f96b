/*!
The search layer: which configurations to measure and in what order. The sweep engine over the
block sizes of one configuration ([`sweep`]), the configurations of the axes put together
([`assemble`]), and racing them ([`race`]).
*/

pub mod assemble;
pub mod configurations;
pub mod race;
pub mod strategy;
pub mod sweep;
