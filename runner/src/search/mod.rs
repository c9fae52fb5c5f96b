/*!
The search layer: which configurations to measure and in what order. The sweep engine over the
block sizes of one configuration ([`sweep`]), the configurations of the axes put together
([`assemble`]), racing them ([`race`]), and running a search over them, its rounds and rungs
([`rounds`]).
*/

pub mod assemble;
pub mod configurations;
pub mod race;
pub mod rounds;
pub mod strategy;
pub mod sweep;
